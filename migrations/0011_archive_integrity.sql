-- Integrity of stored archives: what the last verification found (on the record, shown by the
-- API), and when each archive was last checked (apart from the records).
--
-- `integrity` changes rarely (an archive found missing or corrupt, or fine again): it lives on the
-- record, so the existing triggers re-index its search document and empty the read caches, as
-- for any change a viewer sees. The times of the checks change at every check: they live in
-- archive_checks, which no trigger watches, so a routine check re-indexes nothing and leaves the
-- read caches alone (as livestream_downloads does for downloads).

alter table livestreams
  add column integrity text check (integrity in ('ok', 'missing', 'corrupt'));
-- null: never verified (or nothing stored here to verify).

-- /metrics counts stored archives by integrity at each scrape: from this index alone
create index livestreams_integrity on livestreams (integrity) where video_key is not null;

create table archive_checks (
  livestream_id text primary key references livestreams (id) on delete cascade,
  -- last check of any kind (the object exists and its size matches, or its sha256 was read too)
  verified_at   timestamptz not null,
  -- last check that read the whole object and compared its sha256; null: never
  hashed_at     timestamptz
);
-- the archives checked longest ago come first (never-checked ones have no row and come before)
create index archive_checks_verified on archive_checks (verified_at);
create index archive_checks_hashed on archive_checks (hashed_at);

-- records with a stored archive gain the `integrity` field: their search documents follow
insert into search_outbox (livestream_id) select id from livestreams where video_key is not null order by id;
