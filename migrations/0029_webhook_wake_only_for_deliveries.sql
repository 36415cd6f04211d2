-- A record's event wakes the webhook workers only when it made a delivery (issue 35, decision
-- 0085): on an instance without webhooks, each submission, start and end of a recording sent a
-- deliver-webhooks job through pg-boss (a send, a fetch, a run with nothing to send and a
-- completion) for nothing. The event itself is kept as before (the feeds read it).

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
  if found then
    perform pg_notify('kura_webhook_events', '');
  end if;
  return event_id;
end $$;
