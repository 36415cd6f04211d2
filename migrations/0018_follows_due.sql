-- Workers sleep until a follow's next check instead of claiming every second (issue 19,
-- src/jobs/follow-poller.ts): a follow that becomes due sooner than it was (added, resumed, brought
-- forward, or a check done: the claim's lease gives way to the next check) tells them when, on
-- `kura_follows`, its next check as epoch milliseconds. A claim pushes the time later and says nothing.
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
