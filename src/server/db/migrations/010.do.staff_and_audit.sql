-- Staff accounts, roles, sessions, keys, queue claims and the audit record (docs/operations.md).
-- The people on the operator's side sign in as themselves (Firebase Auth, as drivers do) and act
-- with the roles an owner gave them; no shared secret opens anything for a person.

-- A person on the operator's side. Removal is a time, not a deletion: the audit record names them
-- for ever, and a removed person's sessions and keys stop at their next request.
CREATE TABLE staff (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Lower-cased; the Firebase account that signs in must carry this email.
  email text NOT NULL,
  -- Bound at the first sign-in: a later account made with the same email is not this person.
  firebase_uid text,
  roles text[] NOT NULL CHECK (cardinality(roles) > 0 AND roles <@ ARRAY['reviewer', 'privacy-officer', 'owner']),
  -- Who added them: a staff member's email, or `terminal:<user>` for the first owner.
  added_by text NOT NULL,
  added_at timestamptz NOT NULL,
  removed_at timestamptz
);
-- One active person per email (a removed one may be added again, as a new row).
CREATE UNIQUE INDEX staff_active_email_idx ON staff (email) WHERE removed_at IS NULL;
CREATE UNIQUE INDEX staff_firebase_uid_idx ON staff (firebase_uid) WHERE removed_at IS NULL;

-- A staff member's signed-in browser: only the token's SHA-256 is kept. Apart from drivers'
-- sessions on purpose: a driver's token is never a staff token, and the other way round.
CREATE TABLE staff_sessions (
  token_hash text PRIMARY KEY,
  staff_id uuid NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- Firebase's auth_time: when the person typed their password (a privacy officer's fresh sign-in).
  authenticated_at timestamptz NOT NULL
);
CREATE INDEX staff_sessions_staff_idx ON staff_sessions (staff_id);

-- A person's key for the command line or a script: hashed, shown once, revocable by an owner.
CREATE TABLE staff_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  key_hash text NOT NULL UNIQUE,
  staff_id uuid NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
  label text NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz,
  revoked_by text
);
CREATE INDEX staff_keys_staff_idx ON staff_keys (staff_id);

-- A waiting driver opened by a reviewer: theirs to decide on until it lapses or is released.
CREATE TABLE queue_claims (
  driver_id uuid PRIMARY KEY REFERENCES drivers (id) ON DELETE CASCADE,
  staff_id uuid NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
  claimed_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

-- The audit record: every decision, export, erasure, resume link, opening of a driver's record or
-- document, staff change and sign-in failure. Append-only. `driver_id` has no foreign key on
-- purpose: the record of an erasure outlives the driver. `details` never holds a driver's PII.
CREATE TABLE audit_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL,
  -- Who: the staff member (null for a sign-in nobody could be named for), and how they were named then.
  staff_id uuid,
  actor text,
  action text NOT NULL,
  driver_id uuid,
  -- From where: the client's address as the server saw it.
  ip text,
  details jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_at_idx ON audit_events (at DESC, id DESC);
CREATE INDEX audit_events_driver_idx ON audit_events (driver_id, at DESC) WHERE driver_id IS NOT NULL;
CREATE INDEX audit_events_staff_idx ON audit_events (staff_id, at DESC) WHERE staff_id IS NOT NULL;

-- Nothing changes or removes a row, whoever asks: the table's owner included (a superuser can
-- still disable triggers; the server must not run as one, README "Production").
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_events_no_update_or_delete BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();

-- And the privilege itself: any role other than the owner that was granted UPDATE, DELETE or
-- TRUNCATE here (by default privileges, say) loses it, so the server's role can only insert and read.
DO $$
DECLARE grantee text;
BEGIN
  FOR grantee IN
    SELECT DISTINCT g.grantee FROM information_schema.role_table_grants g
    WHERE g.table_schema = current_schema() AND g.table_name = 'audit_events'
      AND g.privilege_type IN ('UPDATE', 'DELETE', 'TRUNCATE')
      AND g.grantee <> 'PUBLIC' AND g.grantee <> (SELECT tableowner FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'audit_events')
  LOOP
    EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM %I', grantee);
  END LOOP;
  REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM PUBLIC;
END;
$$;
