-- Followed channels are first-class too (issue 17): GET /api/channels lists every channel with
-- archives or a follow, and marks the followed ones.

-- each listed channel's `followed` flag, and a followed channel found by its id
create index follows_channel on follows (channel_id) where channel_id is not null;

-- the api processes' read cache holds channel pages, which show follows: a follow added, removed
-- or renamed empties it like a change to records does (checks, which touch neither column, do not)
create function follows_notify_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('kura_livestreams_changed', '');
  return null;
end $$;

create trigger follows_changed after insert or delete or update of channel_id, channel_name on follows
  for each statement execute function follows_notify_change();
