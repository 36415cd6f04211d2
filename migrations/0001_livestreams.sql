-- Livestream records, their submitters, and the aggregates /api/stats and the
-- pagination totals read. The aggregates are kept by statement-level triggers,
-- so they change in the same transaction as the rows they count.

create table livestreams (
  id                   text primary key check (id ~ '^[A-Za-z0-9_-]{1,64}$'),
  platform             text not null check (platform in ('youtube', 'hls')),
  source_url           text not null,
  status               text not null check (status in ('upcoming', 'live', 'finished', 'failed')),
  failure_reason       text,
  title                text not null default '',
  channel_name         text not null default '',
  channel_id           text not null default '',
  thumbnail_url        text,
  scheduled_start_at   timestamptz not null,
  started_at           timestamptz,
  ended_at             timestamptz,
  -- archive facts, measured from the stored file; null until an archive exists
  file_size_bytes      bigint check (file_size_bytes >= 0),
  length_seconds       integer check (length_seconds >= 0),
  video_key            text,
  log_key              text,
  thumbnail_key        text,
  sha256               text check (sha256 ~ '^[0-9a-f]{64}$'),
  external_archive_url text,
  created_at           timestamptz not null default now(),
  updated_at           timestamptz not null default now(),
  check ((status = 'failed') = (failure_reason is not null))
);

create index livestreams_history_all on livestreams (scheduled_start_at, id);
create index livestreams_history_finished on livestreams (scheduled_start_at, id) where status = 'finished';
create index livestreams_queue on livestreams (scheduled_start_at, id) where status in ('upcoming', 'live');

create table livestream_submitters (
  id            bigint generated always as identity primary key,
  livestream_id text not null references livestreams (id) on delete cascade,
  provider      text not null,
  user_id       text not null,
  submitted_at  timestamptz not null default now(),
  unique (livestream_id, provider, user_id)
);
-- a record's submitters in submission order, read from the index alone
create index livestream_submitters_in_order on livestream_submitters (livestream_id, id) include (provider, user_id);

-- counted apart from the records, so a download does not invalidate every cached page
create table livestream_downloads (
  livestream_id text primary key references livestreams (id) on delete cascade,
  count         bigint not null default 0
);

create table livestream_totals (
  singleton       boolean primary key default true check (singleton),
  all_count       bigint not null default 0,
  finished_count  bigint not null default 0,
  -- archived and queued: every status but failed
  counted_count   bigint not null default 0,
  total_file_size bigint not null default 0,
  total_length    bigint not null default 0,
  unique_channels bigint not null default 0
);
insert into livestream_totals default values;

-- how many counted records each channel has, so unique_channels moves only on 0 <-> 1;
-- rows that fall to 0 are kept (cheaper than finding them again)
create table channel_totals (
  channel_id      text primary key,
  livestream_count bigint not null
);

create function livestream_totals_apply() returns trigger language plpgsql as $$
declare
  columns constant text := 'status, channel_id, coalesce(file_size_bytes, 0) as size, coalesce(length_seconds, 0) as len';
  delta text;
begin
  delta := case tg_op
    when 'INSERT' then format('select 1 as sign, %s from new_rows', columns)
    when 'DELETE' then format('select -1 as sign, %s from old_rows', columns)
    else format('select 1 as sign, %s from new_rows union all select -1, %s from old_rows', columns, columns)
  end;

  -- the singleton row first: concurrent writers queue here, before any channel row
  execute format($q$
    with delta as (%s)
    update livestream_totals set
      all_count       = all_count + (select coalesce(sum(sign), 0) from delta),
      finished_count  = finished_count + (select coalesce(sum(sign), 0) from delta where status = 'finished'),
      counted_count   = counted_count + (select coalesce(sum(sign), 0) from delta where status <> 'failed'),
      total_file_size = total_file_size + (select coalesce(sum(sign * size), 0) from delta where status <> 'failed'),
      total_length    = total_length + (select coalesce(sum(sign * len), 0) from delta where status <> 'failed')
  $q$, delta);

  execute format($q$
    with delta as (%s),
    per_channel as (
      select channel_id, sum(sign) as change from delta
      where status <> 'failed' and channel_id <> ''
      group by channel_id having sum(sign) <> 0
      order by channel_id
    ),
    applied as (
      insert into channel_totals as c (channel_id, livestream_count)
      select channel_id, change from per_channel
      on conflict (channel_id) do update set livestream_count = c.livestream_count + excluded.livestream_count
      returning c.channel_id, c.livestream_count
    )
    update livestream_totals set unique_channels = unique_channels + (
      select coalesce(sum(case
        when a.livestream_count > 0 and a.livestream_count - p.change = 0 then 1
        when a.livestream_count = 0 then -1
        else 0 end), 0)
      from applied a join per_channel p using (channel_id)
    )
  $q$, delta);

  perform pg_notify('kura_livestreams_changed', '');
  return null;
end $$;

create trigger livestreams_totals_insert after insert on livestreams
  referencing new table as new_rows for each statement execute function livestream_totals_apply();
create trigger livestreams_totals_update after update on livestreams
  referencing old table as old_rows new table as new_rows for each statement execute function livestream_totals_apply();
create trigger livestreams_totals_delete after delete on livestreams
  referencing old table as old_rows for each statement execute function livestream_totals_apply();

create function livestream_totals_reset() returns trigger language plpgsql as $$
begin
  update livestream_totals set all_count = 0, finished_count = 0, counted_count = 0,
    total_file_size = 0, total_length = 0, unique_channels = 0;
  delete from channel_totals;
  perform pg_notify('kura_livestreams_changed', '');
  return null;
end $$;

create trigger livestreams_totals_truncate after truncate on livestreams
  for each statement execute function livestream_totals_reset();

-- submitters appear in records: a change to them must reach read caches too
create function livestream_submitters_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('kura_livestreams_changed', '');
  return null;
end $$;

create trigger livestream_submitters_changed after insert or update or delete on livestream_submitters
  for each statement execute function livestream_submitters_notify();
