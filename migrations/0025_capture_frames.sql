-- While a stream is recorded, its worker grabs a frame of a recent segment about once a minute and
-- stores it in the archive store (docs/decisions/0079): when it last did is kept here, so the API
-- names the frame (its URL carries the time) without asking the store whether it exists.
alter table captures add column frame_at timestamptz;
