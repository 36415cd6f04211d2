-- Stretches of a capture's parts that are stored in the archive store (the "uploaded prefix"):
-- a worker cuts each part into chunks at segment boundaries, uploads them as they fill and
-- deletes them locally, so its disk holds a few chunks whatever the stream's length, and a
-- capture resumed on another machine finds its bytes here. Chunks are uploaded in order, so the
-- rows of a capture always cover its parts from their first byte, without holes.
create table capture_chunks (
  livestream_id text not null references captures (livestream_id) on delete cascade,
  part          integer not null,
  start_offset  bigint not null,
  end_offset    bigint not null check (end_offset > start_offset),
  -- unique per upload, so a late upload by a worker that lost its lease never overwrites it
  object_key    text not null,
  uploaded_at   timestamptz not null default now(),
  primary key (livestream_id, part, start_offset)
);
