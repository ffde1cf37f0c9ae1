-- An owner invites the person they add: an email with a link to choose their password. The link's
-- token is kept only as its SHA-256; it works once (accepted_at), until expires_at, and not after
-- an owner revoked it or sent a newer one (revoked_at).
CREATE TABLE staff_invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  staff_id uuid NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  -- Who sent it: an owner's email.
  sent_by text NOT NULL,
  sent_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX staff_invitations_staff_idx ON staff_invitations (staff_id, sent_at DESC);

-- The staff list reads each person's last sign-in and recent failed ones from the audit record.
CREATE INDEX audit_events_staff_action_idx ON audit_events (staff_id, action, at DESC) WHERE staff_id IS NOT NULL;
