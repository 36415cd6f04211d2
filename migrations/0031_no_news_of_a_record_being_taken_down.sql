-- A record an admin asked to take down makes no more news of its status (issue 49): a finalize
-- that committed the archive after the takedown was asked emitted `livestream.finished` just
-- before the takedown's `livestream.removed`, announcing an archive that was being deleted. The
-- next and last event of such a record is `livestream.removed`.

create or replace function livestream_events_change() returns trigger language plpgsql as $$
declare
  event_type text;
begin
  if tg_op = 'INSERT' then
    -- a record queued (imports of finished or failed records are not news)
    if new.status in ('upcoming', 'live') then event_type := 'livestream.queued'; end if;
  elsif new.takedown_requested_at is not null then
    return null; -- being taken down: its removal is the news
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
