-- What staff read stays fast at a million drivers, continued (migration 024).

-- The review queue's search with an @ in it (routes/admin.ts): every address at a domain shares its
-- trigrams, so the trigram index of the emails reads them all. The text before the search's @ ends
-- the email's local part: reversed, a prefix, which a B-tree finds.
CREATE INDEX drivers_email_local_reversed_idx ON drivers (reverse(split_part(lower(email), '@', 1)) text_pattern_ops);
-- The planner's estimate of how few a prefix finds comes from the expression's statistics.
ANALYZE drivers;
