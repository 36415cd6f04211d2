-- Live chat of YouTube streams (issue 20), captured beside the recording by the `capture-chat`
-- job: one row per message, written in batches as they arrive, so a crash loses at most the
-- batch in flight and a resumed job adds only what is new (the primary key is YouTube's own id).
create table chat_captures (
  livestream_id text primary key references livestreams (id) on delete cascade,
  -- capturing: a worker holds it (lease as captures'); ended: the chat or the capture ended;
  -- none: the stream has no chat (disabled, or yt-dlp offers none); failed: gave up (detail says why)
  state         text not null default 'capturing' check (state in ('capturing', 'ended', 'none', 'failed')),
  detail        text,
  worker_id     text,
  heartbeat_at  timestamptz,
  started_at    timestamptz not null default now()
);

create table chat_messages (
  livestream_id     text not null references livestreams (id) on delete cascade,
  -- YouTube's id of the message: the same message fetched twice (a resumed job) is kept once
  id                text not null,
  -- YouTube's time of the message (timestampUsec); offsets are counted from the archive's start at read time
  sent_at           timestamptz not null,
  author_name       text not null,
  author_channel_id text not null,
  author_badges     text[] not null default '{}',
  -- the message as text: Unicode emoji as themselves, a channel's own emoji as its shortcut
  body              text not null,
  -- the channel's own emoji of the message: [{"shortcut": ":_x:", "url": "https://…"}]
  emojis            jsonb,
  paid_amount       numeric,
  paid_currency     text,
  paid_text         text,
  primary key (livestream_id, id)
);

create index chat_messages_by_time on chat_messages (livestream_id, sent_at);

-- a chat lease taken or given up wakes the watchdog, as a capture's does (0018)
create trigger chat_captures_lease_changed after insert or update of worker_id on chat_captures
  for each statement execute function captures_notify_lease();
