-- A worker's liveness tied to its database session (issue 49): each worker notes the backend of
-- its LISTEN connection; when the process dies, PostgreSQL ends that backend at once, and its
-- captures are taken over without waiting for their leases to go stale (decision 0038).

create table worker_sessions (
  worker_id     text primary key,
  backend_pid   integer not null,
  backend_start timestamptz not null,
  noted_at      timestamptz not null default now()
);

-- workers whose noted session is gone (the pid alone could be reused by a later backend)
create view gone_workers as
  select s.worker_id from worker_sessions s
  where not exists (select 1 from pg_stat_activity a where a.pid = s.backend_pid and a.backend_start = s.backend_start);
