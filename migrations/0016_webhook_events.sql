-- Webhook events about follows (issue 18): `follow.unhealthy`, written to the outbox of migration
-- 0015 by the statement that stores the check's outcome (FollowRepo.recordCheck), so the two commit
-- together. The check itself decides that a spell starts (the hour lives in the core).

-- the follow an event is about (livestream_id is null for these)
alter table events add column follow_id text;

-- the outbox's fan-out (enqueue_event, 0015) for a follow: its channel filters, its events go out in
-- order under the record key `follow/{id}`, and the event keeps the follow's row as it was then
create function enqueue_follow_event(event_type text, f follows) returns bigint language plpgsql as $$
declare
  event_id bigint;
begin
  event_id := enqueue_event(event_type, 'follow/' || f.id, f.channel_id, to_jsonb(f));
  update events set livestream_id = null, follow_id = f.id where id = event_id;
  return event_id;
end $$;

-- the hourly pruning of webhook history finds an event's deliveries (and deleting an event cascades to them)
create index webhook_deliveries_event on webhook_deliveries (event_id);
