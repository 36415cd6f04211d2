-- One-time setup tokens of a fresh instance: while no admin account exists, each api process
-- that starts adds one (printed in its log; only the SHA-256 is kept). POST /auth/setup takes
-- one to create the first admin, which deletes them all.
create table setup_tokens (
  token_hash bytea primary key,
  created_at timestamptz not null default now()
);
