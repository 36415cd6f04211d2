-- A takedown of a record being recorded (docs/decisions/0024) first stops its capture: who asked,
-- why and when are kept on the record until a worker, once the capture has ended, deletes its
-- files and the record (src/core/workflow/complete-takedown.ts). While set, the record is not
-- served (404), and the sweep completes a takedown nothing else did.
alter table livestreams
  add column takedown_admin text,
  add column takedown_reason text,
  add column takedown_requested_at timestamptz,
  add constraint livestreams_takedown_whole check (
    (takedown_admin is null) = (takedown_requested_at is null) and (takedown_reason is null) = (takedown_requested_at is null));

-- the sweep reads the pending takedowns every minute: they are few, read from this index alone
create index livestreams_pending_takedowns on livestreams (takedown_requested_at, id) where takedown_requested_at is not null;
