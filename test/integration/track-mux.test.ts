import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFfmpegTools } from '../../src/adapters/media/ffmpeg-tools.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { createS3Store } from '../../src/adapters/storage/s3-store.js';
import type { ByteSource } from '../../src/core/archive/ports.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { fragmentBytes, makeFragments, type FragmentRepresentation } from '../support/youtube-fragments.js';

// Finalize's mux of a capture of fragments (a video and an audio track, each its fragments one
// after another, as ffmpeg-made fragments of YouTube's kind are): into a local file, and streamed
// into a real S3 server with the video input held back and the audio read as ffmpeg asks.
let dir: string;
let s3: TestS3;
let tracks: { video: Buffer; audio: Buffer };
const SECONDS = 40;
const FPS = 30;

/** A track as a byte source read from memory, in the pieces a store's reads give. */
const memorySource = (bytes: Buffer): ByteSource => ({
  bytes: bytes.length,
  async *read({ start, end }) {
    for (let at = start; at <= end; at += 64 * 1024) yield bytes.subarray(at, Math.min(end + 1, at + 64 * 1024));
  },
});
const meta = { contentType: 'video/mp4', contentDisposition: 'attachment' };

async function framesAndDuration(file: string): Promise<{ frames: number; duration: number; streams: string[] }> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('ffprobe', [
      '-v',
      'error',
      '-count_packets',
      '-show_entries',
      'stream=codec_type,nb_read_packets:format=duration',
      '-of',
      'json',
      file,
    ]);
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`ffprobe exited ${code}`))));
  });
  const report = JSON.parse(out) as { streams: Array<{ codec_type: string; nb_read_packets: string }>; format: { duration: string } };
  const video = report.streams.find((s) => s.codec_type === 'video');
  return { frames: Number(video?.nb_read_packets), duration: Number(report.format.duration), streams: report.streams.map((s) => s.codec_type) };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-track-mux-'));
  s3 = await startS3();
  const material = await makeFragments({ codecs: 'h264', seconds: SECONDS, targetSeconds: 2, fps: FPS });
  const [, big, audio] = material.representations as [FragmentRepresentation, FragmentRepresentation, FragmentRepresentation];
  const track = async (r: FragmentRepresentation) =>
    Buffer.concat(await Promise.all(Array.from({ length: material.fragmentCount }, (_, sq) => fragmentBytes(r, sq))));
  tracks = { video: await track(big), audio: await track(audio) };
});
afterAll(async () => {
  await s3.stop();
});

describe("finalize's mux of a video and an audio track", () => {
  it('makes one MP4 with every frame and the whole duration, locally and streamed into S3, byte for byte the same', async () => {
    const tools = createFfmpegTools({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', backlogBytes: 64 * 1024 });
    const fs = createFsStore(path.join(dir, 'archive'));
    const local = await fs.beginWrite('archives/t/t.mp4', meta);
    const muxed = await tools.mux(
      { video: memorySource(tracks.video), audio: [{ source: memorySource(tracks.audio), language: null }] },
      local,
      path.join(dir, 'work-t.mp4'),
    );
    const file = path.join(dir, 'archive', 'archives/t/t.mp4');
    expect(await framesAndDuration(file)).toEqual({ frames: SECONDS * FPS, duration: expect.closeTo(SECONDS, 0), streams: ['video', 'audio'] });
    expect(muxed.durationSeconds).toBeCloseTo(SECONDS, 0);

    // the same into S3, ffmpeg's video input held back to a 64 kB backlog: neither input waits on the other for ever
    const store = createS3Store(s3.config);
    const writer = await store.beginWrite('archives/s/s.mp4', meta);
    expect(writer.kind).toBe('head-last');
    const streamed = await tools.mux(
      { video: memorySource(tracks.video), audio: [{ source: memorySource(tracks.audio), language: null }] },
      writer,
      path.join(dir, 'work-s.mp4'),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of await store.read('archives/s/s.mp4')) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(await readFile(file))).toBe(true);
    expect(streamed.stored).toEqual(muxed.stored);
    expect(await s3.openUploads()).toEqual([]);
  });

  it('muxes several audio tracks after the video, each tagged with its language as MP4 names it', async () => {
    const tools = createFfmpegTools({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', backlogBytes: 64 * 1024 });
    const fs = createFsStore(path.join(dir, 'archive'));
    const audio = [
      { source: memorySource(tracks.audio), language: 'en' },
      { source: memorySource(tracks.audio), language: 'ja-JP' },
      { source: memorySource(tracks.audio), language: null },
    ];
    await tools.mux({ video: memorySource(tracks.video), audio }, await fs.beginWrite('archives/l/l.mp4', meta), path.join(dir, 'work-l.mp4'));
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'stream=codec_type:stream_tags=language',
        '-of',
        'json',
        path.join(dir, 'archive', 'archives/l/l.mp4'),
      ]);
      let text = '';
      child.stdout.on('data', (c: Buffer) => (text += c.toString()));
      child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`ffprobe exited ${code}`))));
    });
    const streams = (JSON.parse(out) as { streams: Array<{ codec_type: string; tags?: { language?: string } }> }).streams;
    expect(streams.map((s) => [s.codec_type, s.tags?.language])).toEqual([
      ['video', 'und'],
      ['audio', 'eng'],
      ['audio', 'jpn'],
      ['audio', 'und'],
    ]);
  });
});
