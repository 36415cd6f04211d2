import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKura } from '../support/cli.js';
import { probe } from '../support/hls-fixture.js';
import { waitForRecord } from '../support/records.js';
import { liveFromStart } from '../support/yt-dlp-state.js';
import { useYouTubeHarness } from '../support/youtube-harness.js';
import { fetchedFragment, recordedVideoItag, youtubeArchive } from '../support/youtube-archive.js';
import { makeFragments } from '../support/youtube-fragments.js';

// A broadcast paused long enough for its capture to end, that then goes on, end to end (issue 48,
// decision 0090): a real `kura serve`, ffmpeg and PostgreSQL; the googlevideo STAND-IN's head stops
// growing while the yt-dlp STAND-IN says `not_live` (the capture ends after the idle limit, 8 s
// here, and is archived), then the head grows again and yt-dlp says live
// (docs/research/youtube-live-contract.md §7).
const VIDEO_ID = 'goesOnE2eTs';
const URL = `https://www.youtube.com/watch?v=${VIDEO_ID}`;
const y = useYouTubeHarness('kura-youtube-goes-on-');

const archive = youtubeArchive(y, VIDEO_ID);
/** The capture's chunks in the fs store (its folder goes with the last of them). */
const chunkFiles = () =>
  readdir(path.join(y.cwd, 'data', 'archive', 'captures', VIDEO_ID), { recursive: true, withFileTypes: true }).then(
    (entries) => entries.filter((entry) => entry.isFile()).map((entry) => entry.name),
    () => [],
  );

describe('a YouTube stream that goes on after its capture ended (googlevideo and yt-dlp stand-ins)', () => {
  it('paused as not_live until the capture ended and was archived, then live again: the same record goes on, one archive of every frame', async () => {
    const material = await makeFragments({ codecs: 'h264', seconds: 20, targetSeconds: 1, fps: 10 });
    y.googlevideo.broadcast(VIDEO_ID, { material, startedSecondsAgo: 2 });
    // the broadcast pauses at fragment 9, however late a loaded machine gets to the next steps
    y.googlevideo.stall(VIDEO_ID, 9);
    const live = liveFromStart(y.googlevideo, VIDEO_ID, 2) as { videos: Record<string, object> };
    await y.says(live);
    const api = await y.serve();
    expect((await runKura(['archive', URL], y.env(), y.cwd)).code).toBe(0);

    // YouTube says not_live once fragment 8 was fetched: the capture ends, and is archived
    await y.googlevideo.seen(fetchedFragment(recordedVideoItag(material), 8), 1);
    await y.says({ ...live, liveStatus: 'not_live', videos: { [VIDEO_ID]: { ...live.videos[VIDEO_ID], liveStatus: 'not_live' } } });
    const first = await archive.finished(api, 120_000);
    expect(first.log).toMatch(/the source says the stream is not live/);
    expect(first.log).toMatch(/the stream may go on \(the source stopped saying the stream is live[^)]*\(not_live\)\): its chunks are kept/);
    expect(first.details.length).toBeLessThan(material.seconds); // what came before the pause
    const kept = await y.db.pool.query(`select state, kept_until, next_sequence from captures where livestream_id = $1`, [VIDEO_ID]);
    expect(kept.rows[0]).toMatchObject({ state: 'kept', kept_until: expect.any(Date) });
    // the fragment recording goes on from the first not recorded: at most the one after the frozen head
    const next = Math.floor(Number(kept.rows[0].next_sequence) / 2);
    expect(next).toBeGreaterThan(8);
    expect(next).toBeLessThanOrEqual(10);
    expect((await chunkFiles()).length).toBeGreaterThan(0);
    const meanwhile = await runKura(['archive', URL], y.env(), y.cwd);
    expect(meanwhile.stderr).toContain('This video is not a livestream.'); // YouTube's word while it says not_live

    // the streamer is back: Kura's own look sees a fragment past the last recorded, and the same
    // record goes on from its next fragment, to the broadcast's end
    y.googlevideo.resume(VIDEO_ID);
    await y.says(live);
    await waitForRecord(y.db.url, VIDEO_ID, (r) => r.status === 'live', 60_000);
    await archive.endsAfter(material.fragmentCount - 1, material, 40);
    const { details, log } = await archive.finished(api);
    expect(log).toMatch(
      new RegExp(`the stream went on \\(the source serves fragments up to \\d+; ${next} is the next to record\\): recording goes on from the next fragment`),
    );
    expect(details.capture.gaps).toEqual([]);
    expect(details.capture.complete).toBe(true);
    expect((await probe(archive.file())).frames).toBe(material.seconds * 10);
    expect((await y.db.pool.query(`select count(*)::int as n from livestreams`)).rows[0].n).toBe(1);
    // the kept chunks went once the whole was archived
    expect((await y.db.pool.query(`select state from captures where livestream_id = $1`, [VIDEO_ID])).rows[0].state).toBe('finalized');
    expect(await chunkFiles()).toEqual([]);
  }, 300_000);
});
