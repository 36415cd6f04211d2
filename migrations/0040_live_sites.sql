-- Twitch and the other live sites yt-dlp opens (issue 56, decision 0133): a record's platform may
-- be `twitch` or `site` beside `youtube` and `hls`. The check was named by PostgreSQL when the
-- table was made (0001).
alter table livestreams drop constraint livestreams_platform_check;
alter table livestreams add constraint livestreams_platform_check check (platform in ('youtube', 'hls', 'twitch', 'site'));

-- The ads a source stitches into its stream (Twitch's, marked in its playlist) are cut, not lost:
-- a run of them is one break, kept apart from capture_gaps (a break is no hole in the stream and
-- leaves a capture complete). `at_seconds`: where the cut lies on the recording's timeline, from
-- its first recorded segment, the lost stretches before it counted (as capture_gaps.at_seconds);
-- null for ads before the first recorded segment (a pre-roll).
create table capture_ad_breaks (
  livestream_id  text not null references captures (livestream_id) on delete cascade,
  first_sequence bigint not null,
  last_sequence  bigint not null,
  seconds        double precision not null,
  at_seconds     double precision,
  primary key (livestream_id, first_sequence)
);
