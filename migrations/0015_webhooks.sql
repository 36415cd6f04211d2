-- Webhooks (issue 18): an outbox of events written by triggers in the same transaction as the
-- change that causes them, fanned out there and then to the webhooks that want them, so a crash
-- between a change and its delivery loses nothing. Workers deliver (pg-boss `deliver-webhooks`).

create table webhooks (
  id              text primary key,
  url             text not null,
  -- event types it wants; null: every type
  events          text[],
  -- only this channel's records; null: every channel
  channel_id      text,
  -- the whsec_ signing key: kept as given (HMAC needs it), shown once, never read back by the API
  secret          text not null check (secret ~ '^whsec_'),
  created_by      text not null,
  created_at      timestamptz not null default now(),
  -- since when every delivery fails (null after a success); five days of it disables the webhook
  failing_since   timestamptz,
  disabled_at     timestamptz,
  disabled_reason text,
  check ((disabled_at is null) = (disabled_reason is null))
);

create table events (
  id            bigint generated always as identity primary key,
  type          text not null,
  -- the record it is about (no foreign key: a removed record's events outlive it)
  livestream_id text,
  -- the record's row as it was when the event happened (livestream events)
  snapshot      jsonb,
  -- what else it carries (webhook.test)
  data          jsonb,
  occurred_at   timestamptz not null default now()
);
create index events_occurred_at on events (occurred_at);

create table webhook_deliveries (
  id               bigint generated always as identity primary key,
  webhook_id       text not null references webhooks (id) on delete cascade,
  event_id         bigint not null references events (id) on delete cascade,
  -- deliveries of one record to one webhook go out in event order
  record_key       text,
  attempts         integer not null default 0,
  last_status_code integer,
  last_error       text,
  last_duration_ms integer,
  first_attempt_at timestamptz,
  last_attempt_at  timestamptz,
  -- when it is tried next (or, while a worker sends it, when its claim runs out)
  next_attempt_at  timestamptz not null default now(),
  delivered_at     timestamptz,
  given_up_at      timestamptz,
  created_at       timestamptz not null default now(),
  unique (webhook_id, event_id)
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where delivered_at is null and given_up_at is null;
create index webhook_deliveries_pending on webhook_deliveries (webhook_id, record_key, event_id) where delivered_at is null and given_up_at is null;
create index webhook_deliveries_recent on webhook_deliveries (webhook_id, id desc);

-- a record as /api/history reads it: its row with its submitters, downloads and last check
create function livestream_snapshot(l livestreams) returns jsonb language sql stable as $$
  select to_jsonb(l) || jsonb_build_object(
    'submitters', to_jsonb(array(select s.provider || '/' || s.user_id from livestream_submitters s where s.livestream_id = l.id order by s.id)),
    'download_count', coalesce((select d.count from livestream_downloads d where d.livestream_id = l.id), 0),
    'verified_at', (select c.verified_at from archive_checks c where c.livestream_id = l.id))
$$;

-- writes an event and a delivery for each enabled webhook that wants it; workers are woken
create function enqueue_event(event_type text, record_id text, record_channel text, record_snapshot jsonb) returns bigint language plpgsql as $$
declare
  event_id bigint;
begin
  insert into events (type, livestream_id, snapshot) values (event_type, record_id, record_snapshot) returning id into event_id;
  insert into webhook_deliveries (webhook_id, event_id, record_key)
    select w.id, event_id, record_id from webhooks w
    where w.disabled_at is null
      and (w.events is null or event_type = any (w.events))
      and (w.channel_id is null or w.channel_id = record_channel);
  perform pg_notify('kura_webhook_events', '');
  return event_id;
end $$;

-- deferred to the commit, so a record's submitters (inserted after it) are in its snapshot;
-- NEW is still the row as this change left it
create function livestream_events_change() returns trigger language plpgsql as $$
declare
  event_type text;
begin
  if tg_op = 'INSERT' then
    -- a record queued (imports of finished or failed records are not news)
    if new.status in ('upcoming', 'live') then event_type := 'livestream.queued'; end if;
  elsif new.status is distinct from old.status then
    event_type := case new.status
      when 'live' then 'livestream.live'
      when 'finished' then 'livestream.finished'
      when 'failed' then 'livestream.failed'
      -- a retry queues it again
      when 'upcoming' then 'livestream.queued'
    end;
  end if;
  if event_type is not null then
    perform enqueue_event(event_type, new.id, new.channel_id, livestream_snapshot(new));
  end if;
  return null;
end $$;

create constraint trigger livestreams_events_change after insert or update of status on livestreams
  deferrable initially deferred for each row execute function livestream_events_change();

-- before the delete, while its submitters (deleted with it) are still there
create function livestream_events_removed() returns trigger language plpgsql as $$
begin
  perform enqueue_event('livestream.removed', old.id, old.channel_id, livestream_snapshot(old));
  return old;
end $$;

create trigger livestreams_events_removed before delete on livestreams
  for each row execute function livestream_events_removed();
