-- Each worker's spool disk as the worker last reported it (every 30 s): the api, which may run on
-- another machine, shows and exports the spools it cannot statfs itself. One row a worker process
-- (host:pid), replaced at each report; a report deletes the rows no worker renewed for a day.
create table worker_disks (
  worker_id text primary key,
  free_bytes bigint not null check (free_bytes >= 0),
  total_bytes bigint not null check (total_bytes >= 0),
  reported_at timestamptz not null
);

-- the archive's growth (bytes of archives finished in the last 30 days) reads the recent ends only
create index livestreams_finished_by_end on livestreams (ended_at) where status = 'finished';
