-- The onboarding data of spec §3. Times are set by the server (its clock is injectable for
-- tests), so columns that take part in expiry rules have no SQL default.

CREATE TABLE drivers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL UNIQUE,
  firebase_uid text NOT NULL UNIQUE,
  -- Firebase's sign_in_provider: 'password' for email sign-up, 'google.com' etc. for social.
  provider text NOT NULL,
  -- E.164 with the +1 prefix, as the client stores and sends it.
  phone text,
  referral_code text,
  terms_accepted_at timestamptz,
  sms_consent_at timestamptz,
  -- The address the client reported at sign-up: recorded only, never trusted for limits.
  signup_ip text,
  email_verified_at timestamptz,
  phone_verified_at timestamptz,
  first_name text,
  last_name text,
  middle_initial text,
  suffix text,
  date_of_birth date,
  gender text,
  driver_license_number text,
  -- AES-256-GCM (iv | ciphertext | tag); only the last four digits are kept in clear.
  ssn_ciphertext bytea,
  ssn_last4 text,
  street text,
  city text,
  state text,
  zip_code text,
  profile_completed_at timestamptz,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  rejection_reason text,
  is_session_complete boolean NOT NULL DEFAULT false,
  is_subscription_paid boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sessions (
  -- SHA-256 of the bearer token (hex): a database leak gives no usable token.
  token_hash text PRIMARY KEY,
  driver_id uuid NOT NULL REFERENCES drivers (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_driver_id_idx ON sessions (driver_id);

CREATE TABLE otp_codes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- NULL for a code "sent" to an unknown email: it is never delivered and can never match,
  -- but it counts toward the send limit so known and unknown emails answer alike.
  driver_id uuid REFERENCES drivers (id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('email', 'sms')),
  destination text NOT NULL,
  -- HMAC-SHA-256 with a key derived from DATA_KEY: 4 digits are too few for a plain hash.
  code_hash text NOT NULL,
  expires_at timestamptz NOT NULL,
  wrong_attempts integer NOT NULL DEFAULT 0,
  -- Set when the code is used or replaced by a newer one.
  consumed_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX otp_codes_destination_idx ON otp_codes (channel, destination, created_at);

CREATE TABLE vehicles (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  driver_id uuid NOT NULL REFERENCES drivers (id) ON DELETE CASCADE,
  make text,
  model text,
  year integer,
  plate text,
  wheelchair boolean NOT NULL DEFAULT false,
  driver_license_expiry date,
  registration_expiry date,
  insurance_expiry date,
  submitted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX vehicles_driver_id_idx ON vehicles (driver_id);

CREATE TABLE uploads (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  driver_id uuid NOT NULL REFERENCES drivers (id) ON DELETE CASCADE,
  -- Set for vehicle photos and documents; NULL for the profile's photo and SSN card.
  vehicle_id uuid REFERENCES vehicles (id) ON DELETE CASCADE,
  -- The form field, e.g. 'socialSecurityCardFront'.
  field text NOT NULL,
  -- Random file name under DATA_DIR/uploads; the client's file name is never used.
  storage_name text NOT NULL UNIQUE,
  -- The type sniffed from the bytes, not the one the client declared.
  mime text NOT NULL,
  size integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX uploads_driver_id_idx ON uploads (driver_id, field);
