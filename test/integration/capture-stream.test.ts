import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { captureStream, type CaptureDeps } from '../../src/core/capture/capture-stream.js';
import { FragmentsUnavailable } from '../../src/core/capture/fragment-tracks.js';
import type { FragmentRecorder, StreamRecorder } from '../../src/core/capture/ports.js';
import type { FragmentedStream, FragmentFormat, SourceStatus } from '../../src/core/sources/ports.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// How a capture chooses what to record, on a real PostgreSQL, with the source and both recorders
// as DOUBLES (what they do is tested on their own): a YouTube stream's fragments from the first
// when offered, the playlist of the live edge's window when not, and the fallback between them.
const ID = 'choiceTest1';
let db: TestDatabase;

beforeEach(async () => {
  db = await createTestDatabase();
  await db.pool.query(`insert into livestreams (id, platform, source_url, status, scheduled_start_at) values ($1, 'youtube', $2, 'upcoming', now())`, [
    ID,
    `https://www.youtube.com/watch?v=${ID}`,
  ]);
});
afterEach(async () => {
  await db.drop();
});

const format = (id: string, mime: string): FragmentFormat => ({
  id,
  url: `https://rr1.googlevideo.example/videoplayback?itag=${id}&expire=1`,
  mime,
  codec: mime.startsWith('video') ? 'avc1.4d401f' : 'mp4a.40.2',
  width: null,
  height: mime.startsWith('video') ? 720 : null,
  fps: null,
  bitrate: 1000,
});
const FRAGMENTS: FragmentedStream = { video: format('136', 'video/mp4'), audio: format('140', 'audio/mp4'), fragmentSeconds: 5, offered: [] };
FRAGMENTS.offered = [FRAGMENTS.video, FRAGMENTS.audio];
const PLAYLIST = 'https://manifest.googlevideo.example/hls_playlist/itag/301/index.m3u8';

/** The capture's dependencies with the source and recorders as doubles; `asked` lists what each check asked for. */
function deps(options: { fragments: boolean; fragmentRecorder: FragmentRecorder['record'] }) {
  const asked: Array<{ fragments?: boolean } | undefined> = [];
  const recorded: string[] = [];
  const check = async (_url: string, _quality: string | null, opts?: { fragments?: boolean }): Promise<SourceStatus> => {
    asked.push(opts);
    if (options.fragments && opts?.fragments !== false) return { state: 'live', fragments: FRAGMENTS };
    return {
      state: 'live',
      playlistUrl: PLAYLIST,
      ...(options.fragments ? {} : { fragmentsRefused: 'YouTube offers no video and audio formats from the start' }),
    };
  };
  const recorder: StreamRecorder = {
    async record(target) {
      recorded.push(target.playlist.url);
      return 'endlist';
    },
  };
  const value: CaptureDeps = {
    livestreams: db.livestreams,
    captures: createCaptureRepo(db.pool),
    source: { recognises: () => true, inspect: async () => ({ kind: 'rejected', reason: 'unused' }), qualities: async () => [], check },
    recorder,
    fragmentRecorder: { record: options.fragmentRecorder },
    scheduler: { watch: async () => undefined, capture: async () => undefined, chat: async () => undefined, finalize: async () => undefined },
  };
  return { value, asked, recorded };
}
const worker = () => ({ workerId: 'worker-1', staleAfterSeconds: 30, unreachableSeconds: 600, signal: new AbortController().signal });
const captureRow = async () =>
  (await db.pool.query<{ fragment_formats: unknown; playlist_url: string | null; end_reason: string }>('select * from captures where livestream_id = $1', [ID]))
    .rows[0];

describe('what a capture records', () => {
  it('records the fragments from the first when the source offers them, pinning their formats', async () => {
    let given: FragmentedStream | null = null;
    const { value, recorded } = deps({ fragments: true, fragmentRecorder: async (target) => ((given = target.stream), 'endlist') });
    await captureStream(value, ID, worker());
    expect(given).toEqual(FRAGMENTS);
    expect(recorded).toEqual([]);
    expect(await captureRow()).toMatchObject({
      fragment_formats: { video: '136', audio: '140', fragmentSeconds: 5 },
      playlist_url: null,
      end_reason: 'endlist',
    });
  });

  it('asks again, after a wait, a source that could not say whether the stream is live (a 429), and then records it', async () => {
    let given: FragmentedStream | null = null;
    const { value } = deps({ fragments: true, fragmentRecorder: async (target) => ((given = target.stream), 'endlist') });
    const live = value.source.check;
    let looks = 0;
    value.source = {
      ...value.source,
      check: async (...args) =>
        ++looks === 1 ? { state: 'unknown', trouble: 'rate_limited', reason: 'YouTube rate-limits Kura: HTTP Error 429: Too Many Requests' } : live(...args),
    };
    const started = Date.now();
    await captureStream(value, ID, worker());
    expect(given).toEqual(FRAGMENTS);
    expect(looks).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5000);
    expect(await value.captures.readLog(ID)).toMatch(
      /could not say whether the stream is live \(YouTube rate-limits Kura: HTTP Error 429[^\n]*\); asking again in 5 s/,
    );
  });

  it('records the playlist when no fragments are offered, saying why in the log', async () => {
    const { value, recorded } = deps({ fragments: false, fragmentRecorder: async () => Promise.reject(new Error('not used')) });
    await captureStream(value, ID, worker());
    expect(recorded).toEqual([PLAYLIST]);
    expect(await captureRow()).toMatchObject({ fragment_formats: null, playlist_url: PLAYLIST });
    expect(await value.captures.readLog(ID)).toMatch(/YouTube offers no video and audio formats from the start/);
  });

  it('falls back to the playlist of the live edge when the fragment path cannot start, and the capture is one of a playlist from then on', async () => {
    const { value, asked, recorded } = deps({
      fragments: true,
      fragmentRecorder: async () => Promise.reject(new FragmentsUnavailable('video fragment 0 could not be fetched (HTTP 401)')),
    });
    await captureStream(value, ID, worker());
    expect(recorded).toEqual([PLAYLIST]);
    expect(asked.at(-1)).toEqual({ fragments: false });
    expect(await captureRow()).toMatchObject({ fragment_formats: null, playlist_url: PLAYLIST, end_reason: 'endlist' });
    expect(await value.captures.readLog(ID)).toMatch(
      /recording fragments failed \(video fragment 0 could not be fetched \(HTTP 401\)\); recording from the live edge's window through HLS/,
    );
  });

  it('resumes a capture of fragments in the formats it pinned, under fresh URLs, and fails when the source no longer offers them', async () => {
    const resumed: FragmentedStream[] = [];
    const { value } = deps({ fragments: true, fragmentRecorder: async (target) => (resumed.push(target.stream), 'endlist') });
    const captures = createCaptureRepo(db.pool);
    await captures.claim(ID, 'worker-0', 30);
    await captures.setFragmentFormats(ID, { video: '136', audio: '140', fragmentSeconds: 5 });
    await captures.release(ID, 'worker-0');
    await captureStream(value, ID, worker());
    expect(resumed.map((s) => [s.video.id, s.audio.id])).toEqual([['136', '140']]);

    await db.pool.query(`update captures set state = 'capturing', end_reason = null, worker_id = null where livestream_id = $1`, [ID]);
    await captures.setFragmentFormats(ID, { video: '299', audio: '140', fragmentSeconds: 5 });
    await expect(captureStream(value, ID, worker())).rejects.toThrow('the source no longer offers formats 299 and 140 in fragments');
  });
});
