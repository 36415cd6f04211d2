-- Each notification on kura_livestreams_changed names the kind of thing that changed (decision
-- 0108), so a listener drops or redoes only what depends on it: '' (unchanged: migrations 0001 and
-- 0012) records, their totals and their submitters; 'search' the search documents; 'follows' the
-- follows. A watch look notifies nothing: the queue answers that show one are kept a few seconds.

create or replace function search_words_count() returns trigger language plpgsql as $$
begin
  if tg_op in ('DELETE', 'UPDATE') then
    update search_words w set documents = w.documents - o.n
    from (select word, count(*)::integer as n from old_rows, unnest(tsvector_to_array(words)) word group by word) o
    where w.word = o.word;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into search_words as w (word, documents)
    select word, count(*)::integer from new_rows, unnest(tsvector_to_array(words)) word group by word order by word
    on conflict (word) do update set documents = w.documents + excluded.documents;
  end if;
  -- the read caches of api processes keep search answers too: they drop them once documents change
  perform pg_notify('kura_livestreams_changed', 'search');
  return null;
end $$;

create or replace function search_changes_log() returns trigger language plpgsql as $$
begin
  if tg_op = 'TRUNCATE' then
    insert into search_changes (document_id) values (null);
  elsif tg_op = 'DELETE' then
    insert into search_changes (document_id) select id from old_rows;
  else
    insert into search_changes (document_id) select id from new_rows;
  end if;
  delete from search_changes where changed_at < now() - interval '1 hour';
  -- the api processes refresh their index (and drop their cached search answers) on this
  perform pg_notify('kura_livestreams_changed', 'search');
  return null;
end $$;

create or replace function follows_notify_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('kura_livestreams_changed', 'follows');
  return null;
end $$;

drop trigger watch_looks_changed on watch_looks;
drop function watch_looks_notify();
