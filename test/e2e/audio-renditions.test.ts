import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useCaptureHarness } from '../support/capture-harness.js';
import { SEGMENT_REQUEST } from '../support/hls-fixture.js';

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

/** Records the fixture's stream with separate audio renditions in English and Japanese to its end; the archive's streams. */
async function recordRenditions(env: Record<string, string> = {}) {
  const fixture = await h.startFixture({ seconds: SECONDS, audioRenditions: ['en', 'ja'], announced: false });
  await h.serve(env);
  const encoded = fixture.start();
  await fixture.onAir();
  const id = await h.archive(fixture.url);
  await encoded;
  const done = await h.settled(id);
  expect(done.status, done.failure_reason ?? '').toBe('finished');
  return { fixture, id, streams: await streamsOf(h.archivedFile(id)) };
}

describe('an HLS stream whose audio is a separate rendition', () => {
  it('archives with its default audio beside the video, tagged with its language, both the whole stream long', async () => {
    const { fixture, streams } = await recordRenditions();
    expect(streams.map((s) => [s.kind, s.language])).toEqual([
      ['video', 'und'],
      ['audio', 'eng'],
    ]);
    for (const stream of streams) expect(stream.seconds).toBeCloseTo(SECONDS, 0);
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
});
