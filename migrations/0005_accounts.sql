-- Accounts: users of every login provider, their sessions and API tokens, the transient
-- state of logins in progress, rate-limit windows, and what admins did to records.
-- Secrets (session tokens, API tokens, passwords) are kept only as hashes.

create table users (
  id               bigint generated always as identity primary key,
  provider         text not null check (provider ~ '^[a-z0-9_-]{1,32}$'),
  provider_user_id text not null check (provider_user_id ~ '^[^\s/]{1,128}$'),
  name             text not null,
  avatar_url       text,
  -- admins named in KURA_ADMINS are admins too, without being stored as such
  role             text not null default 'user' check (role in ('user', 'admin')),
  -- local accounts only: scrypt$N$r$p$salt$hash
  password_hash    text,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  last_login_at    timestamptz,
  unique (provider, provider_user_id),
  check ((provider = 'local') = (password_hash is not null))
);

create table sessions (
  token_hash   bytea primary key,
  user_id      bigint not null references users (id) on delete cascade,
  created_at   timestamptz not null default now(),
  last_used_at timestamptz not null default now(),
  expires_at   timestamptz not null
);
create index sessions_expiry on sessions (expires_at);
create index sessions_of_user on sessions (user_id);

create table api_tokens (
  id           bigint generated always as identity primary key,
  user_id      bigint not null references users (id) on delete cascade,
  name         text not null,
  token_hash   bytea not null unique,
  created_at   timestamptz not null default now(),
  last_used_at timestamptz
);
create index api_tokens_of_user on api_tokens (user_id, id);

-- a login at an external provider between its redirect and its callback; used once
create table login_attempts (
  id_hash       bytea primary key,
  provider      text not null,
  state         text not null,
  code_verifier text not null,
  nonce         text not null,
  next_path     text not null,
  expires_at    timestamptz not null
);
create index login_attempts_expiry on login_attempts (expires_at);

-- fixed windows: `hits` counted since `window_started_at`
create table rate_limit_windows (
  bucket            text not null,
  key               text not null,
  window_started_at timestamptz not null,
  window_seconds    integer not null,
  hits              integer not null,
  primary key (bucket, key)
);

-- no foreign key: a takedown deletes the record this row remembers
create table admin_actions (
  id            bigint generated always as identity primary key,
  action        text not null check (action in ('takedown', 'cancel', 'retry')),
  livestream_id text not null,
  admin         text not null,
  reason        text not null,
  -- the record as it was (title, source, submitters), kept for takedowns
  record        jsonb,
  acted_at      timestamptz not null default now()
);
create index admin_actions_of_livestream on admin_actions (livestream_id, id);
