-- The weekly subscription and the payout bank account. The provider (Stripe, or the
-- local sandbox that stands in for it) keeps the money side; these rows keep which provider
-- objects belong to which driver, so no id sent by a browser is trusted on its own.

-- One row per driver. A request that finds no row claims it (status 'creating') before asking the
-- provider, so two concurrent calls make one subscription; a claim left behind by a crash is
-- taken over once it is older than a minute.
CREATE TABLE subscriptions (
  driver_id uuid PRIMARY KEY REFERENCES drivers (id) ON DELETE CASCADE,
  customer_id text,
  subscription_id text UNIQUE,
  payment_intent_id text,
  -- 'creating' while claimed, then the provider's status as last seen (incomplete, active, …).
  status text NOT NULL,
  claimed_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Provider webhook events already handled: deliveries repeat and arrive out of order.
CREATE TABLE payment_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  received_at timestamptz NOT NULL
);

-- Where ride payments go. The account number is AES-256-GCM encrypted (iv | ciphertext | tag,
-- bound to the driver); only its last four digits are kept in clear and ever leave the server.
CREATE TABLE bank_accounts (
  driver_id uuid PRIMARY KEY REFERENCES drivers (id) ON DELETE CASCADE,
  account_holder_name text NOT NULL,
  account_number_ciphertext bytea NOT NULL,
  account_number_last4 text NOT NULL,
  routing_number text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- The local sandbox provider's own records (what Stripe would keep on its side). Unused with Stripe.
CREATE TABLE sandbox_subscriptions (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  idempotency_key text NOT NULL UNIQUE,
  payment_intent_id text NOT NULL UNIQUE,
  client_secret text NOT NULL,
  -- incomplete → active once the first payment succeeds.
  status text NOT NULL,
  invoice_status text NOT NULL,
  amount_cents integer NOT NULL,
  created_at timestamptz NOT NULL
);
