-- One feed token a user: a secret for URLs (feed readers, video players) that reads feeds and
-- downloads of a private instance and nothing else. Kept only as its hash, like API tokens;
-- rotating replaces the row, so the old token stops working at once.

create table feed_tokens (
  user_id      bigint primary key references users (id) on delete cascade,
  token_hash   bytea not null unique,
  created_at   timestamptz not null default now(),
  last_used_at timestamptz
);
