-- Search: a transactional outbox that every change to a record feeds (by triggers, so imports,
-- takedowns and any future writer are covered), the built-in engine's documents, its words for
-- typo tolerance, and the search-only key handed to clients.
-- pg_trgm and unaccent are "trusted" extensions: a database owner may create them without being superuser.

create extension if not exists unaccent;
create extension if not exists pg_trgm;

-- the one normalisation of searchable text: accents off, lower case (unaccent is only stable,
-- so this wrapper names its dictionary to be immutable, as generated columns and indexes need)
create function kura_search_norm(value text) returns text
  language sql immutable strict parallel safe
  as $$ select lower(public.unaccent('public.unaccent'::regdictionary, value)) $$;

create table search_outbox (
  id            bigint generated always as identity primary key,
  livestream_id text not null,
  queued_at     timestamptz not null default now()
);
create index search_outbox_livestream on search_outbox (livestream_id);

create function search_outbox_from_livestreams() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into search_outbox (livestream_id) select id from old_rows order by id;
  else
    insert into search_outbox (livestream_id) select id from new_rows order by id;
  end if;
  return null;
end $$;

create trigger livestreams_search_insert after insert on livestreams
  referencing new table as new_rows for each statement execute function search_outbox_from_livestreams();
create trigger livestreams_search_update after update on livestreams
  referencing new table as new_rows for each statement execute function search_outbox_from_livestreams();
create trigger livestreams_search_delete after delete on livestreams
  referencing old table as old_rows for each statement execute function search_outbox_from_livestreams();

create function search_outbox_from_submitters() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into search_outbox (livestream_id) select distinct livestream_id from old_rows order by 1;
  else
    insert into search_outbox (livestream_id) select distinct livestream_id from new_rows order by 1;
  end if;
  return null;
end $$;

create trigger submitters_search_insert after insert on livestream_submitters
  referencing new table as new_rows for each statement execute function search_outbox_from_submitters();
create trigger submitters_search_delete after delete on livestream_submitters
  referencing old table as old_rows for each statement execute function search_outbox_from_submitters();

-- The built-in engine's index: one document per record (the record shape of the API, as jsonb),
-- with the columns filters and sorts read, and the words searched.
create table search_documents (
  id                 text primary key,
  document           jsonb not null,
  title              text not null,
  channel_name       text not null,
  channel_id         text not null,
  status             text not null,
  finished           boolean not null,
  platform           text not null,
  scheduled_start_at timestamptz not null,
  length_seconds     integer,
  file_size_bytes    bigint,
  words              tsvector generated always as (
    setweight(to_tsvector('simple', kura_search_norm(title)), 'A') ||
    setweight(to_tsvector('simple', kura_search_norm(channel_name)), 'B')
  ) stored
);
create index search_documents_words on search_documents using gin (words);
create index search_documents_newest on search_documents (scheduled_start_at desc, id desc);
create index search_documents_channel on search_documents (channel_id, scheduled_start_at desc);

-- every word the documents hold, with how many documents hold it: a query word no document has
-- is replaced by the most similar known words (trigram similarity, typos), and a one-word query
-- whose word is in 1,000 documents or more needs no count (hits are counted up to 1,000).
-- Kept by statement-level triggers on search_documents (which also notify the api processes'
-- read caches); `kura search reindex` starts them afresh.
create table search_words (
  word      text primary key collate "C",
  documents integer not null
);
create index search_words_trigrams on search_words using gin (word gin_trgm_ops);

create function search_words_count() returns trigger language plpgsql as $$
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
  -- the read caches of api processes keep search answers too: empty them once documents change
  perform pg_notify('kura_livestreams_changed', '');
  return null;
end $$;

create trigger search_documents_words_insert after insert on search_documents
  referencing new table as new_rows for each statement execute function search_words_count();
create trigger search_documents_words_update after update on search_documents
  referencing old table as old_rows new table as new_rows for each statement execute function search_words_count();
create trigger search_documents_words_delete after delete on search_documents
  referencing old table as old_rows for each statement execute function search_words_count();

-- the built-in engine's search-only key (one row): every api process hands out and accepts the same
create table search_settings (
  singleton  boolean primary key default true check (singleton),
  search_key text not null,
  created_at timestamptz not null default now()
);
