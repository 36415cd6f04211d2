-- Documents the search engine refused (Meilisearch: a task that failed with its reason, after
-- Kura's retries), marked to be indexed again (decision 0115): the drain queues them once
-- retry_at has passed, a reindex queues everything, and a record's next change queues it anyway.
create table search_rejections (
  livestream_id text primary key,
  reason        text not null,
  rejected_at   timestamptz not null default now(),
  retry_at      timestamptz not null
);
create index search_rejections_due on search_rejections (retry_at);
