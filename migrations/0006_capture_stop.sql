-- An admin may stop a capture in progress: the reason is kept here until the worker recording it
-- sees it at its next heartbeat and ends the capture ('cancelled'); what was recorded is archived.
alter table captures add column stop_requested text;
