import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { YTDLP_STAND_IN } from '../support/app.js';
import { useCaptureHarness } from '../support/capture-harness.js';
import { runKura } from '../support/cli.js';
import { SEGMENT_REQUEST } from '../support/hls-fixture.js';

// An admin's title rule that a backtracking engine runs in time exponential in the title, a
// streamer's titles that trigger it, and a capture running in the same `kura serve` meanwhile: the
// outside probe saw /healthz take 86 s and the capture lose 38 segments. The feed is served here and
// yt-dlp is the STAND-IN (test/support/bin/yt-dlp-stand-in.mjs).
const h = useCaptureHarness();
const CHANNEL = 'UCkuraHostileTitles00001';
/** Titles of 40–64 characters: on JavaScript's engine, `(a+)+$` on the first alone takes hours. */
const HOSTILE = ['hostile0001', 'hostile0002', 'hostile0003'].map((id, i) => ({ id, title: `${'a'.repeat(40 + i * 12)}!` }));

function feedXml(): string {
  const published = new Date(Date.now() - 3_600_000).toISOString();
  const entries = HOSTILE.map(
    ({ id, title }) =>
      `<entry><id>yt:video:${id}</id><yt:videoId>${id}</yt:videoId><yt:channelId>${CHANNEL}</yt:channelId><title>${title}</title>` +
      `<link rel="alternate" href="https://www.youtube.com/watch?v=${id}"/><published>${published}</published><updated>${published}</updated></entry>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?><feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns="http://www.w3.org/2005/Atom"><title>Hostile</title>${entries.join('')}</feed>`;
}

/** Serves the channel's feed; resolves with its URL, a count of its requests and a way to close it. */
async function startFeed() {
  const state = { requests: 0 };
  const server = createServer((_request, response) => {
    state.requests += 1;
    response.writeHead(200, { 'content-type': 'application/atom+xml; charset=UTF-8' }).end(feedXml());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feeds/videos.xml`;
  return { url, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('a follow whose title rule is catastrophic for a backtracking engine', () => {
  it("skips the streamer's hostile titles at once while a capture in the same process loses no segment", async () => {
    const feed = await startFeed();
    try {
      const stateFile = path.join(h.dataDir, '..', 'yt-dlp-state.json');
      const channels = { [CHANNEL]: { handle: '@hostile', name: 'Hostile titles', streams: [] } };
      await writeFile(stateFile, JSON.stringify({ videos: {}, channels, membersOnlyAccess: false, calls: path.join(h.dataDir, '..', 'calls.log') }));
      const env = {
        YTDLP_PATH: YTDLP_STAND_IN,
        YTDLP_STAND_IN_STATE: stateFile,
        KURA_FOLLOW_POLL_SECONDS: '1',
        KURA_FOLLOW_HOST_RATE: '6000',
        KURA_YOUTUBE_FEED_URL: feed.url,
      };
      const added = await runKura(['follow', 'add', CHANNEL, '--title-include', '(a+)+$'], h.env(env), path.dirname(h.dataDir));
      expect(added.code, added.stderr).toBe(0);
      const followId = added.stdout.trim();

      // a sliding window of 4 segments: a process stalled for more than ~4 s loses segments for good
      const live = await h.startFixture({ seconds: 12, listSize: 4 });
      const api = await h.serve(env);
      const id = await h.archive(live.url);
      const encoded = live.start();
      await live.seen(SEGMENT_REQUEST, 2);
      const from = feed.state.requests;
      await expect.poll(() => feed.state.requests - from, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
      const follow = await fetch(`${api}/api/follows/${followId}`).then((r) => r.json());
      const skipped = Object.fromEntries(follow.recent.map((s: { streamId: string; reason: string }) => [s.streamId, s.reason]));
      expect(skipped).toEqual(Object.fromEntries(HOSTILE.map(({ id }) => [id, 'the title does not match /(a+)+$/i'])));
      await encoded;

      const done = await h.settled(id);
      expect(done.status, done.failure_reason ?? '').toBe('finished');
      const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
      expect(details.capture.gaps).toEqual([]);
    } finally {
      await feed.close();
    }
  });
});
