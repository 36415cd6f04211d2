-- Personal webhooks (issue 18): a logged-in user's "notify me about my submissions". A webhook
-- with an owner (the user's submitter, provider/userId) is sent only the events of records the
-- owner submitted or that a follow the owner created queued (submitter follow/{id}); the scoping
-- happens in the outbox trigger's transaction, like the rest of the fan-out. Instance webhooks
-- (owner null) keep seeing everything.

alter table webhooks add column owner text;
create index webhooks_owner on webhooks (owner) where owner is not null;

create or replace function enqueue_event(event_type text, record_id text, record_channel text, record_snapshot jsonb) returns bigint language plpgsql as $$
declare
  event_id bigint;
  submitters text[] := array(select jsonb_array_elements_text(coalesce(record_snapshot -> 'submitters', '[]'::jsonb)));
begin
  insert into events (type, livestream_id, snapshot) values (event_type, record_id, record_snapshot) returning id into event_id;
  insert into webhook_deliveries (webhook_id, event_id, record_key)
    select w.id, event_id, record_id from webhooks w
    where w.disabled_at is null
      and (w.events is null or event_type = any (w.events))
      and (w.channel_id is null or w.channel_id = record_channel)
      and (w.owner is null
        or w.owner = any (submitters)
        or exists (select 1 from follows f where f.created_by = w.owner and 'follow/' || f.id = any (submitters)));
  perform pg_notify('kura_webhook_events', '');
  return event_id;
end $$;
