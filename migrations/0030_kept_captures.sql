-- A capture that ended as its stream may go on (a YouTube head frozen while live for the stall
-- limit, or frozen while YouTube says neither live nor ended) is finalized `kept`: its chunks stay
-- in the store, so the same record can go on from its next fragment when the stream does (issue
-- 48, decision 0090). `kept_until` is when Kura stops looking and deletes them.

alter table captures drop constraint captures_state_check;
alter table captures add constraint captures_state_check check (state in ('capturing', 'ended', 'kept', 'finalized'));
alter table captures add column kept_until timestamptz;
alter table captures add constraint captures_kept_until check ((state = 'kept') = (kept_until is not null));
create index captures_kept on captures (kept_until) where state = 'kept';
