import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_FRAMES, INTERRUPTED_SECONDS, useCaptureHarness } from '../support/capture-harness.js';
import { probe, SEGMENT_REQUEST, type FixtureOptions } from '../support/hls-fixture.js';
import { waitForRecord } from '../support/records.js';

// A multivariant playlist whose audio is a separate rendition (`#EXT-X-MEDIA:TYPE=AUDIO`), as
// ffmpeg's -var_stream_map writes it: video-only segments, and an audio playlist per language. Kura
// records the audio beside the video and the archive holds both (decision 0136).
const h = useCaptureHarness();
const SECONDS = 8;

interface Stream {
  codec_type: string;
  duration: string;
  tags?: { language?: string };
}

/** ffprobe's streams of a file: their kind, duration and language. */
async function streamsOf(file: string): Promise<Array<{ kind: string; seconds: number; language: string | undefined }>> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,duration:stream_tags=language', '-of', 'json', file]);
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`ffprobe exited ${code}`))));
  });
  return (JSON.parse(out) as { streams: Stream[] }).streams.map((s) => ({ kind: s.codec_type, seconds: Number(s.duration), language: s.tags?.language }));
}

/**
 * Records the fixture's stream with separate audio renditions in English and Japanese to its end;
 * the archive's streams, and what its live playlist answered while it was recorded.
 */
async function recordRenditions(env: Record<string, string> = {}, options: Partial<FixtureOptions> = {}) {
  const fixture = await h.startFixture({ seconds: SECONDS, audioRenditions: ['en', 'ja'], announced: false, ...options });
  const api = await h.serve(env);
  const encoded = fixture.start();
  await fixture.onAir();
  const id = await h.archive(fixture.url);
  await waitForRecord(h.db.url, id, (r) => r.status === 'live');
  const live = await fetch(`${api}/api/video/${id}/live.m3u8`);
  const livePlaylist = { status: live.status, code: ((await live.json()) as { code?: string }).code };
  await encoded;
  const done = await h.settled(id);
  expect(done.status, done.failure_reason ?? '').toBe('finished');
  return { fixture, id, livePlaylist, streams: await streamsOf(h.archivedFile(id)) };
}

describe('an HLS stream whose audio is a separate rendition', () => {
  it('archives with its default audio beside the video, tagged with its language, both the whole stream long', async () => {
    const { fixture, id, livePlaylist, streams } = await recordRenditions();
    expect(streams.map((s) => [s.kind, s.language])).toEqual([
      ['video', 'und'],
      ['audio', 'eng'],
    ]);
    for (const stream of streams) expect(stream.seconds).toBeCloseTo(SECONDS, 0);
    expect((await probe(h.archivedFile(id))).frames).toBe(SECONDS * 30);
    // not played while it is recorded: its archive plays once the stream ends
    expect(livePlaylist).toEqual({ status: 409, code: 'live_not_playable' });
    // the default rendition's segments were fetched, the other language's never
    expect(fixture.requests.filter((r) => /\/en-seg\d+\.ts$/.test(r)).length).toBeGreaterThanOrEqual(SECONDS);
    expect(fixture.requests.filter((r) => /\/ja-/.test(r))).toEqual([]);
    expect(fixture.requests.filter((r) => SEGMENT_REQUEST.test(r) && /\/video-/.test(r)).length).toBeGreaterThanOrEqual(SECONDS);
  });

  it('with KURA_HLS_AUDIO=all, archives every language as an audio stream of its own', async () => {
    const { streams } = await recordRenditions({ KURA_HLS_AUDIO: 'all' });
    expect(streams.map((s) => [s.kind, s.language])).toEqual([
      ['video', 'und'],
      ['audio', 'eng'],
      ['audio', 'jpn'],
    ]);
    for (const stream of streams) expect(stream.seconds).toBeCloseTo(SECONDS, 0);
  });

  it('archives fMP4 renditions, each segment behind its own initialization section, with every frame and the whole audio', async () => {
    const { id, streams } = await recordRenditions({}, { segmentType: 'fmp4' });
    expect(streams.map((s) => [s.kind, s.language])).toEqual([
      ['video', 'und'],
      ['audio', 'eng'],
    ]);
    for (const stream of streams) expect(stream.seconds).toBeCloseTo(SECONDS, 0);
    expect((await probe(h.archivedFile(id))).frames).toBe(SECONDS * 30);
  });

  it('ends as idle, not never, when an audio rendition’s playlist stops answering while the video’s goes on', async () => {
    const fixture = await h.startFixture({ seconds: SECONDS, audioRenditions: ['en'], announced: false });
    fixture.fail = (requestPath) => (requestPath.endsWith('/en.m3u8') ? 404 : null);
    await h.serve({ KURA_CAPTURE_IDLE_SECONDS: '2' });
    const encoded = fixture.start();
    await fixture.onAir();
    const id = await h.archive(fixture.url);
    const done = await h.settled(id);
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toContain('(idle)');
    expect(fixture.requests.filter((r) => /-seg\d+\.ts$/.test(r))).toEqual([]); // no segment of one lane without the other
    await encoded;
  });

  it("resumes after its worker is killed, fetching both lanes again from where the lost disk's bytes began: every frame, and the audio the whole stream long", async () => {
    const lostDisk = (killed: string) => rm(path.join(h.dataDir, 'spool', killed), { recursive: true });
    const { id, api } = await h.interruptMidCapture('SIGKILL', { audioRenditions: ['en'] }, lostDisk);
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toMatch(/from sequence 0 on is neither stored nor on this worker's disk; fetching it again/);
    expect(log).toContain('recording audio en (audio_1) beside the video');
    const archived = h.archivedFile(id);
    expect((await probe(archived)).frames).toBe(INTERRUPTED_FRAMES);
    const streams = await streamsOf(archived);
    expect(streams.map((s) => [s.kind, s.language])).toEqual([
      ['video', 'und'],
      ['audio', 'eng'],
    ]);
    for (const stream of streams) expect(stream.seconds).toBeCloseTo(INTERRUPTED_SECONDS, 0);
  });
});
