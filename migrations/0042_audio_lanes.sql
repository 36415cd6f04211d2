-- A multivariant playlist whose audio is a separate rendition (`#EXT-X-MEDIA:TYPE=AUDIO` with a
-- URI) is recorded with it (issue 56, decision 0136): the renditions recorded beside the video's
-- media playlist, each `{url, language, name}`, so a resumed capture fetches the same ones. Their
-- segments are the capture's segments beside the video's (src/adapters/capture/playlist-lanes.ts);
-- empty for a capture whose audio, if any, is in its video's segments.
alter table captures add column audio_lanes jsonb not null default '[]';
