-- The built-in engine searches an index kept in each api process's memory (posting lists of the
-- documents' words), loaded from search_documents and brought up to date from this change log.
-- It replaces PostgreSQL full-text matching at query time, and with it search_words and the GIN
-- index over the documents' words (the words column stays: it is what the processes load).

drop trigger search_documents_words_insert on search_documents;
drop trigger search_documents_words_update on search_documents;
drop trigger search_documents_words_delete on search_documents;
drop function search_words_count();
drop table search_words;
drop index search_documents_words;

-- each document as the text it was given (json, not jsonb): a search reads its page's documents
-- back as they are, with no conversion (measured: a third less time per page of 20)
alter table search_documents alter column document type json using document::json;

-- Which documents changed, by the writing transaction's id: a process that read the log when the
-- oldest transaction still running was X reads again from X, so a change committed late (by a
-- transaction that began before others that committed first) is never skipped. A null
-- document_id stands for every document (a truncate). Kept an hour: a process that has not read
-- the log for half that long loads everything again.
create table search_changes (
  xid         xid8 not null default pg_current_xact_id(),
  document_id text,
  changed_at  timestamptz not null default now()
);
create index search_changes_xid on search_changes (xid);
create index search_changes_changed_at on search_changes (changed_at);

create function search_changes_log() returns trigger language plpgsql as $$
begin
  if tg_op = 'TRUNCATE' then
    insert into search_changes (document_id) values (null);
  elsif tg_op = 'DELETE' then
    insert into search_changes (document_id) select id from old_rows;
  else
    insert into search_changes (document_id) select id from new_rows;
  end if;
  delete from search_changes where changed_at < now() - interval '1 hour';
  -- the api processes refresh their index (and empty their read caches) on this
  perform pg_notify('kura_livestreams_changed', '');
  return null;
end $$;

create trigger search_documents_changes_insert after insert on search_documents
  referencing new table as new_rows for each statement execute function search_changes_log();
create trigger search_documents_changes_update after update on search_documents
  referencing new table as new_rows for each statement execute function search_changes_log();
create trigger search_documents_changes_delete after delete on search_documents
  referencing old table as old_rows for each statement execute function search_changes_log();
create trigger search_documents_changes_truncate after truncate on search_documents
  for each statement execute function search_changes_log();
