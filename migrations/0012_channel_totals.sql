-- Channels as first-class: each channel's counts, sizes, name and latest archive, kept in
-- channel_totals by the same statement-level trigger as livestream_totals (so in the same
-- transaction as the rows they count), for GET /api/channels and /api/history?channelId=.
-- Counts and sums move by each statement's delta, as before; the latest archive and the name are
-- looked up again (on the indexes below) for the channels the statement changed.

alter table channel_totals
  -- every record of the channel, failed ones too (the total of /history?channelId=&unfinished=true)
  add column all_count        bigint not null default 0,
  add column finished_count   bigint not null default 0,
  -- upcoming and live
  add column upcoming_count   bigint not null default 0,
  -- of the finished records
  add column total_file_size  bigint not null default 0,
  add column total_length     bigint not null default 0,
  -- the name on the channel's most recently scheduled record (a renamed channel shows its new name)
  add column channel_name     text not null default '',
  add column latest_archive_id text,
  add column latest_archive_at timestamptz;

-- a channel's history, its latest archive and its newest name, each read from an index
create index livestreams_channel_all on livestreams (channel_id, scheduled_start_at, id);
create index livestreams_channel_finished on livestreams (channel_id, scheduled_start_at, id) where status = 'finished';
-- GET /api/channels: latest archive first, channels without one last, ties by id
create index channel_totals_listed on channel_totals (latest_archive_at desc nulls last, channel_id) where livestream_count > 0;

create or replace function livestream_totals_apply() returns trigger language plpgsql as $$
declare
  columns constant text := 'id, status, channel_id, channel_name, scheduled_start_at, '
    'coalesce(file_size_bytes, 0) as size, coalesce(length_seconds, 0) as len';
  delta text;
begin
  delta := case tg_op
    when 'INSERT' then format('select 1 as sign, %s from new_rows', columns)
    when 'DELETE' then format('select -1 as sign, %s from old_rows', columns)
    else format('select 1 as sign, %s from new_rows union all select -1, %s from old_rows', columns, columns)
  end;
  -- only the row versions that changed what these aggregates read: an update of other columns
  -- (updated_at, keys, integrity) cancels out here and touches no channel row
  delta := format('select sum(sign) as sign, id, status, channel_id, channel_name, scheduled_start_at, size, len
                     from (%s) d group by id, status, channel_id, channel_name, scheduled_start_at, size, len
                     having sum(sign) <> 0', delta);

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
      select channel_id,
        coalesce(sum(sign) filter (where status <> 'failed'), 0) as change,
        sum(sign) as all_change,
        coalesce(sum(sign) filter (where status = 'finished'), 0) as finished_change,
        coalesce(sum(sign) filter (where status in ('upcoming', 'live')), 0) as upcoming_change,
        coalesce(sum(sign * size) filter (where status = 'finished'), 0) as size_change,
        coalesce(sum(sign * len) filter (where status = 'finished'), 0) as length_change
      from delta where channel_id <> ''
      group by channel_id
      order by channel_id
    ),
    applied as (
      insert into channel_totals as c (channel_id, livestream_count, all_count, finished_count, upcoming_count,
        total_file_size, total_length)
      select channel_id, change, all_change, finished_change, upcoming_change, size_change, length_change from per_channel
      on conflict (channel_id) do update set
        livestream_count = c.livestream_count + excluded.livestream_count,
        all_count        = c.all_count + excluded.all_count,
        finished_count   = c.finished_count + excluded.finished_count,
        upcoming_count   = c.upcoming_count + excluded.upcoming_count,
        total_file_size  = c.total_file_size + excluded.total_file_size,
        total_length     = c.total_length + excluded.total_length
      returning c.channel_id, c.livestream_count
    )
    update livestream_totals set unique_channels = unique_channels + (
      select coalesce(sum(case
        when p.change = 0 then 0
        when a.livestream_count > 0 and a.livestream_count - p.change = 0 then 1
        when a.livestream_count = 0 then -1
        else 0 end), 0)
      from applied a join per_channel p using (channel_id)
    )
  $q$, delta);

  -- a statement of its own, so its snapshot is taken after the channel rows above were locked:
  -- a concurrent writer to the same channel has committed by then, and its records are seen
  execute format($q$
    with delta as (%s)
    update channel_totals c set
      channel_name = coalesce((
        select l.channel_name from livestreams l where l.channel_id = c.channel_id
        order by l.scheduled_start_at desc, l.id desc limit 1), c.channel_name),
      (latest_archive_id, latest_archive_at) = (
        select l.id, l.scheduled_start_at from livestreams l where l.channel_id = c.channel_id and l.status = 'finished'
        order by l.scheduled_start_at desc, l.id desc limit 1)
    where c.channel_id in (select channel_id from delta where channel_id <> '')
  $q$, delta);

  perform pg_notify('kura_livestreams_changed', '');
  return null;
end $$;

-- backfill: every channel recounted from its records (livestream_count included, so it agrees)
insert into channel_totals as c (channel_id, livestream_count, all_count, finished_count, upcoming_count,
  total_file_size, total_length, channel_name, latest_archive_id, latest_archive_at)
select g.channel_id, g.counted, g.all_count, g.finished, g.upcoming, g.size, g.len,
  coalesce(newest.channel_name, ''), latest.id, latest.scheduled_start_at
from (
  select channel_id,
    count(*) filter (where status <> 'failed') as counted,
    count(*) as all_count,
    count(*) filter (where status = 'finished') as finished,
    count(*) filter (where status in ('upcoming', 'live')) as upcoming,
    coalesce(sum(file_size_bytes) filter (where status = 'finished'), 0) as size,
    coalesce(sum(length_seconds) filter (where status = 'finished'), 0) as len
  from livestreams where channel_id <> '' group by channel_id
) g
left join lateral (
  select l.channel_name from livestreams l where l.channel_id = g.channel_id
  order by l.scheduled_start_at desc, l.id desc limit 1
) newest on true
left join lateral (
  select l.id, l.scheduled_start_at from livestreams l where l.channel_id = g.channel_id and l.status = 'finished'
  order by l.scheduled_start_at desc, l.id desc limit 1
) latest on true
on conflict (channel_id) do update set
  livestream_count = excluded.livestream_count, all_count = excluded.all_count,
  finished_count = excluded.finished_count, upcoming_count = excluded.upcoming_count,
  total_file_size = excluded.total_file_size, total_length = excluded.total_length,
  channel_name = excluded.channel_name, latest_archive_id = excluded.latest_archive_id,
  latest_archive_at = excluded.latest_archive_at;
