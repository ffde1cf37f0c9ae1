-- Answers as data: each submitted step is one document, read and written by the step's schema,
-- so a field ops staff add to a schema is kept with no change here. Typed columns stay only for
-- what the server decides on (status, flags, email, phone, ids, times).
--
-- A sensitive field (`"sensitive": true` in its schema) is stored sealed on its own:
--   { "$sealed": base64 AES-GCM, "$masked": "•••••6789", "$fingerprint": keyed hash }
-- The fingerprint tells "changed since the last review" without decrypting.
CREATE TABLE step_answers (
  driver_id uuid NOT NULL REFERENCES drivers (id) ON DELETE CASCADE,
  step text NOT NULL,
  -- The schema the answers were checked with (the variant's name) and its version: a content hash.
  schema_name text NOT NULL,
  schema_version text NOT NULL,
  answers jsonb NOT NULL,
  -- The step's files: upload id by form field.
  files jsonb NOT NULL DEFAULT '{}',
  submitted_at timestamptz NOT NULL,
  -- { answers, files } as the last decision saw them (NULL before any): what changed since.
  reviewed jsonb,
  PRIMARY KEY (driver_id, step)
);

-- What a reviewer asked the driver to fix, field by field, until the driver sends the step again.
CREATE TABLE review_fixes (
  driver_id uuid NOT NULL REFERENCES drivers (id) ON DELETE CASCADE,
  step text NOT NULL,
  field text NOT NULL,
  reason text NOT NULL,
  PRIMARY KEY (driver_id, step, field)
);

-- The flow's review name (its `review.name` answers, joined), kept with each save of that step:
-- what the review queue shows and searches without reading every driver's answers.
ALTER TABLE drivers ADD COLUMN review_name text;
UPDATE drivers SET review_name = NULLIF(concat_ws(' ', first_name, last_name), '');

-- When the driver last sent everything for review: the review queue's order (keyset paging).
ALTER TABLE drivers ADD COLUMN submitted_at timestamptz;
UPDATE drivers d SET submitted_at = (SELECT max(v.submitted_at) FROM vehicles v WHERE v.driver_id = d.id) WHERE d.is_session_complete;
CREATE INDEX drivers_review_queue_idx ON drivers (status, submitted_at, id);
CREATE INDEX drivers_phone_idx ON drivers (phone);

-- The step a file was sent with.
ALTER TABLE uploads ADD COLUMN step text;
UPDATE uploads SET step = CASE
  WHEN vehicle_id IS NULL THEN 'completeProfile'
  WHEN field LIKE 'vehicleImage%' THEN 'uploadVehicleImages'
  ELSE 'addVehicle' END;
ALTER TABLE uploads ALTER COLUMN step SET NOT NULL;

-- Today's rows, moved without loss. The SSN and the account number keep their ciphertext until
-- the server, which holds the key, seals them again field by field at its next start
-- ("$legacy": the old ciphertext and its old context's prefix; lib/answers.ts).
INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, files, submitted_at)
SELECT d.id, 'completeProfile', CASE WHEN d.provider = 'password' THEN 'profile' ELSE 'profile-social' END, 'before-answers',
  jsonb_strip_nulls(jsonb_build_object(
    'firstName', d.first_name, 'lastName', d.last_name, 'MI', d.middle_initial, 'suffix', d.suffix,
    'dateOfBirth', to_char(d.date_of_birth, 'YYYY-MM-DD'), 'gender', d.gender,
    'SSN', CASE WHEN d.ssn_ciphertext IS NOT NULL THEN jsonb_build_object(
      '$legacy', encode(d.ssn_ciphertext, 'base64'), '$legacyContext', 'ssn', '$masked', '•••••' || d.ssn_last4) END,
    'driverLicenseNumber', d.driver_license_number, 'street', d.street, 'city', d.city, 'state', d.state, 'zipCode', d.zip_code,
    'phoneNo', CASE WHEN d.provider <> 'password' THEN substring(d.phone FROM 3) END)),
  COALESCE((SELECT jsonb_object_agg(u.field, u.id::text) FROM uploads u WHERE u.driver_id = d.id AND u.step = 'completeProfile'), '{}'),
  d.profile_completed_at
FROM drivers d WHERE d.profile_completed_at IS NOT NULL;

INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, files, submitted_at)
SELECT v.driver_id, 'uploadVehicleImages', 'vehicle-images', 'before-answers', '{}',
  COALESCE((SELECT jsonb_object_agg(u.field, u.id::text) FROM uploads u WHERE u.vehicle_id = v.id AND u.step = 'uploadVehicleImages'), '{}'),
  v.created_at
FROM (SELECT DISTINCT ON (driver_id) * FROM vehicles ORDER BY driver_id, submitted_at DESC NULLS LAST, created_at DESC) v;

INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, files, submitted_at)
SELECT v.driver_id, 'addVehicle', 'vehicle', 'before-answers',
  jsonb_strip_nulls(jsonb_build_object(
    'vehicleName', v.model, 'vehicleMake', v.make, 'modelYear', v.year::text, 'plateNumber', v.plate,
    'isWheelChairAccessible', v.wheelchair, 'driverLicenseExpiryDate', to_char(v.driver_license_expiry, 'YYYY-MM-DD'),
    'vehicleRegistrationExpiryDate', to_char(v.registration_expiry, 'YYYY-MM-DD'),
    'proofInsuranceExpiryDate', to_char(v.insurance_expiry, 'YYYY-MM-DD'))),
  COALESCE((SELECT jsonb_object_agg(u.field, u.id::text) FROM uploads u WHERE u.vehicle_id = v.id AND u.step = 'addVehicle'), '{}'),
  v.submitted_at
FROM (SELECT DISTINCT ON (driver_id) * FROM vehicles WHERE submitted_at IS NOT NULL ORDER BY driver_id, submitted_at DESC) v;

INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, submitted_at)
SELECT b.driver_id, 'addBank', 'bank', 'before-answers',
  jsonb_build_object('accountHolderName', b.account_holder_name, 'routingNumber', b.routing_number,
    'accountNumber', jsonb_build_object('$legacy', encode(b.account_number_ciphertext, 'base64'), '$legacyContext', 'bank-account',
      '$masked', '•••••' || b.account_number_last4)),
  b.updated_at
FROM bank_accounts b;

-- A driver's photos and documents are the ones their answers name; older vehicles' rows go
-- (their files are swept by the orphan sweep at start, like any file no row names).
DELETE FROM uploads u WHERE NOT EXISTS (
  SELECT 1 FROM step_answers a WHERE a.driver_id = u.driver_id AND a.step = u.step AND a.files ->> u.field = u.id::text);
DELETE FROM vehicles v WHERE NOT EXISTS (
  SELECT 1 FROM (SELECT DISTINCT ON (driver_id) id FROM vehicles ORDER BY driver_id, submitted_at DESC NULLS LAST, created_at DESC) latest WHERE latest.id = v.id);

ALTER TABLE drivers DROP COLUMN first_name, DROP COLUMN last_name, DROP COLUMN middle_initial, DROP COLUMN suffix,
  DROP COLUMN date_of_birth, DROP COLUMN gender, DROP COLUMN driver_license_number, DROP COLUMN ssn_ciphertext,
  DROP COLUMN ssn_last4, DROP COLUMN street, DROP COLUMN city, DROP COLUMN state, DROP COLUMN zip_code;
ALTER TABLE vehicles DROP COLUMN make, DROP COLUMN model, DROP COLUMN year, DROP COLUMN plate, DROP COLUMN wheelchair,
  DROP COLUMN driver_license_expiry, DROP COLUMN registration_expiry, DROP COLUMN insurance_expiry;
-- One vehicle per driver: sending the photos again replaces them on the same vehicle.
CREATE UNIQUE INDEX vehicles_one_per_driver_idx ON vehicles (driver_id);
DROP TABLE bank_accounts;
