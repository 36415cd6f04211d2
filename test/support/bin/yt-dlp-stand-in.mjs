#!/usr/bin/env node
// A STAND-IN for yt-dlp, used by the tests because YouTube cannot be reached here. It answers
// `yt-dlp -J ... -- URL` the way yt-dlp does for a YouTube livestream (the shape of
// test/fixtures/yt-dlp/*.json), in the state the test writes to $YTDLP_STAND_IN_STATE:
// {"liveStatus": "is_upcoming"|"is_live"|"was_live"|"not_live", "releaseTimestamp": N, "hlsUrl": "...", "thumbnailUrl": "..."}
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const url = args.at(-1) ?? '';
const id = /[?&]v=([\w-]{11})/.exec(url)?.[1];
if (!args.includes('-J') || id === undefined) {
  process.stderr.write(`ERROR: [youtube] stand-in: unsupported call ${args.join(' ')}\n`);
  process.exit(1);
}
const state = JSON.parse(readFileSync(process.env.YTDLP_STAND_IN_STATE ?? '', 'utf8'));
const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'yt-dlp');
const info = JSON.parse(readFileSync(path.join(fixtures, 'live.json'), 'utf8'));
info.id = id;
info.webpage_url = url;
info.live_status = state.liveStatus;
info.is_live = state.liveStatus === 'is_live';
info.was_live = state.liveStatus === 'was_live';
info.release_timestamp = state.releaseTimestamp ?? info.release_timestamp;
if (state.thumbnailUrl) info.thumbnails = [{ url: state.thumbnailUrl, preference: 1, id: '0', width: 1280, height: 720 }];
info.formats =
  state.liveStatus === 'is_live'
    ? [
        {
          format_id: '91',
          url: state.hlsUrl,
          protocol: 'm3u8_native',
          ext: 'mp4',
          width: 320,
          height: 180,
          tbr: 500,
          vcodec: 'avc1.42c00d',
          acodec: 'mp4a.40.2',
        },
      ]
    : [];
process.stdout.write(`${JSON.stringify(info)}\n`);
