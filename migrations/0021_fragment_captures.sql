-- YouTube captures recorded fragment by fragment from the first (issue 31): the adaptive video
-- and audio formats chosen (their ids, so a resumed capture keeps the same ones under renewed
-- URLs). Null for a capture of an HLS playlist. Their fragments are stored as the capture's
-- segments, video fragment n as sequence 2n and audio fragment n as 2n + 1 (see
-- src/core/capture/fragment-tracks.ts).
alter table captures add column fragment_formats jsonb;
