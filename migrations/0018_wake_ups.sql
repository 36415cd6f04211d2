-- Workers sleep until there is something to do instead of polling (issue 19). What wakes them
-- from any process is notified here; jobs are notified by a trigger on pg-boss's table, which
-- Kura creates at start (src/jobs/pg-boss-jobs.ts) as pg-boss creates that table after these.

-- The follow poller (src/jobs/follow-poller.ts) sleeps until the earliest next check: a follow
-- that becomes due sooner than it was (added, resumed, brought forward, or checked: the claim's
-- lease gives way to the next check) says when, on `kura_follows`, as epoch milliseconds. A claim
-- pushes the time later and says nothing.
create function follows_notify_due() returns trigger language plpgsql as $$
begin
  perform pg_notify('kura_follows', floor(extract(epoch from NEW.next_check_at) * 1000)::bigint::text);
  return null;
end $$;

create trigger follows_due_added after insert on follows
  for each row when (not NEW.paused) execute function follows_notify_due();

create trigger follows_due_sooner after update of next_check_at, paused on follows
  for each row when (not NEW.paused and (OLD.paused or NEW.next_check_at < OLD.next_check_at))
  execute function follows_notify_due();

-- The capture watchdog (src/jobs/watchdog.ts) sleeps until the oldest lease would go stale: a
-- lease taken or given up (a capture or finalize starting, ending, handed over) wakes it on
-- `kura_leases`. Renewals (heartbeats) set heartbeat_at alone and say nothing.
create function captures_notify_lease() returns trigger language plpgsql as $$
begin
  perform pg_notify('kura_leases', '');
  return null;
end $$;

create trigger captures_lease_changed after insert or update of worker_id on captures
  for each statement execute function captures_notify_lease();
