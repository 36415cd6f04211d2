-- Follows: sources Kura watches for new streams by itself (issue 17), and what it decided about
-- each stream a follow saw, so a stream is decided once and a miss explains itself.

create table follows (
  id             text primary key,
  kind           text not null check (kind in ('youtube_channel', 'holodex', 'hls_endpoint')),
  -- the one kept form of the source: a channel followed twice is refused
  url            text not null unique,
  channel_id     text,
  channel_name   text not null,
  title          text,
  title_include  text,
  title_exclude  text,
  members_only   text not null default 'skip' check (members_only in ('skip', 'include')),
  quality        text,
  paused         boolean not null default false,
  created_by     text not null,
  created_at     timestamptz not null,
  queued_count   bigint not null default 0,
  last_checked_at timestamptz,
  -- the earliest next check of its signals (or the lease of a check in progress)
  next_check_at  timestamptz not null,
  failing_since  timestamptz,
  -- [{signal, lastCheckedAt, lastOkAt, lastError, lastErrorAt, nextCheckAt}], one per signal of its kind
  signals        jsonb not null default '[]'::jsonb
);
-- the poller's claim: the due, unpaused follows, soonest first
create index follows_due on follows (next_check_at) where not paused;

create table follow_sightings (
  follow_id  text not null references follows (id) on delete cascade,
  stream_id  text not null,
  title      text,
  verdict    text not null check (verdict in ('queued', 'known', 'skipped', 'later', 'failed')),
  reason     text not null,
  seen_at    timestamptz not null,
  -- when to decide again; null: decided for good
  recheck_at timestamptz,
  primary key (follow_id, stream_id)
);
-- a follow's page: its latest decisions first
create index follow_sightings_recent on follow_sightings (follow_id, seen_at desc);
