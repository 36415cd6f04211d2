-- Multipart uploads to the object store that were started and not yet completed or aborted.
-- A worker that dies in the middle of an upload leaves its parts in the bucket, billed; the next
-- upload of the same object aborts them first.
create table storage_uploads (
  upload_id  text primary key,
  object_key text not null,
  started_at timestamptz not null default now()
);

create index storage_uploads_by_key on storage_uploads (object_key);
