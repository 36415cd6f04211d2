-- Capture progress, kept so a capture resumes on any worker after a crash: which media
-- sequences are stored in which part file (and up to which byte), what was lost (gaps), and
-- the encoder log that /api/logz serves while the capture runs.

alter table livestreams add column requested_quality text;

create table captures (
  livestream_id   text primary key references livestreams (id) on delete cascade,
  -- the media playlist being recorded (a variant picked from a master playlist)
  playlist_url    text,
  state           text not null default 'capturing' check (state in ('capturing', 'ended', 'finalized')),
  end_reason      text,
  -- the worker holding the capture, renewed every few seconds; a stale one is taken over
  worker_id       text,
  heartbeat_at    timestamptz,
  -- first media sequence not yet stored or recorded as lost
  next_sequence   bigint,
  current_part    integer not null default 1,
  started_at      timestamptz not null default now(),
  ended_at        timestamptz
);

create index captures_running on captures (heartbeat_at) where state = 'capturing';

create table capture_segments (
  livestream_id    text not null references captures (livestream_id) on delete cascade,
  sequence         bigint not null,
  part             integer not null,
  -- the part file holds this segment's bytes up to end_offset (exclusive)
  end_offset       bigint not null,
  duration_seconds double precision not null,
  fetched_at       timestamptz not null default now(),
  primary key (livestream_id, sequence)
);

create index capture_segments_by_part on capture_segments (livestream_id, part, sequence);

create table capture_gaps (
  livestream_id  text not null references captures (livestream_id) on delete cascade,
  first_sequence bigint not null,
  last_sequence  bigint not null,
  seconds        double precision not null,
  reason         text not null,
  recorded_at    timestamptz not null default now(),
  primary key (livestream_id, first_sequence)
);

create table capture_log_lines (
  id            bigint generated always as identity primary key,
  livestream_id text not null references livestreams (id) on delete cascade,
  logged_at     timestamptz not null default now(),
  line          text not null
);

create index capture_log_lines_by_stream on capture_log_lines (livestream_id, id);

create index livestreams_active_by_source on livestreams (source_url) where status in ('upcoming', 'live');
