-- Moments are searched (issue 54, decision 0131): a record's search document carries its moments,
-- and the built-in engine searches their text below the title and the channel name (weight C).
-- The words column is generated: it is made anew from the three texts (the documents' moment_text
-- is empty until each record's document is written again, which the last statement asks for).
alter table search_documents add column moment_text text not null default '';
alter table search_documents drop column words;
alter table search_documents add column words tsvector generated always as (
  setweight(to_tsvector('simple', kura_search_norm(title)), 'A') ||
  setweight(to_tsvector('simple', kura_search_norm(channel_name)), 'B') ||
  setweight(to_tsvector('simple', kura_search_norm(moment_text)), 'C')
) stored;

-- a moment added, changed or removed brings its record's document up to date
create function search_outbox_from_moments() returns trigger language plpgsql as $$
begin
  insert into search_outbox (livestream_id) values (case when tg_op = 'DELETE' then old.livestream_id else new.livestream_id end);
  -- wakes the workers' search drains (no cached answer shows moments: decision 0108's kinds)
  perform pg_notify('kura_livestreams_changed', 'moments');
  return null;
end $$;
create trigger moments_search after insert or update or delete on moments
  for each row execute function search_outbox_from_moments();

-- the records that already have moments: their documents gain them
insert into search_outbox (livestream_id) select distinct livestream_id from moments order by livestream_id;
