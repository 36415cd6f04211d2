-- The watch job's last look at an upcoming record's source that did not find it live (issue 32):
-- when, what the source answered ("HTTP 404", "no segment yet", YouTube's schedule), and when it
-- looks again. One row a record, replaced at every look; the queue and archive pages show it, so
-- a record that cannot be reached says why instead of waiting in silence. Apart from livestreams,
-- whose every update is a search reindex: a look is no change to the record itself.
create table watch_looks (
  livestream_id text primary key references livestreams (id) on delete cascade,
  looked_at timestamptz not null,
  reason text,
  next_look_at timestamptz not null
);

-- the queue and records shown with their looks: read caches must see a new one
create function watch_looks_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('kura_livestreams_changed', '');
  return null;
end $$;

create trigger watch_looks_changed after insert or update on watch_looks
  for each statement execute function watch_looks_notify();
