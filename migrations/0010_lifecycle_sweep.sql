-- The lifecycle sweep (src/core/sweep-lifecycle.ts) repairs records with nothing behind their
-- state; how many of each repair it made is counted here, so /metrics on any api process shows
-- the repairs of every worker.
create table lifecycle_repairs (
  action text primary key check (action in ('watch', 'capture', 'finalize', 'fail')),
  count  bigint not null default 0
);

-- the sweep looks at live records every minute: they are few, read from this index alone
create index livestreams_live on livestreams (id) where status = 'live';
