import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFfmpegTools } from '../../src/adapters/media/ffmpeg-tools.js';
import { Mp4OutputFollower } from '../../src/adapters/media/mp4-output-follower.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { createS3Store } from '../../src/adapters/storage/s3-store.js';
import type { ByteSource } from '../../src/core/archive/ports.js';
import { putObject } from '../support/archives.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { testSignal } from '../support/ffmpeg-args.js';

// Finalize's remux as it runs in production, on real ffmpeg output: on fs, ffmpeg reads the stored
// chunks where they lie and writes the archive's file itself; on S3 (a real S3 server), it reads the
// parts over loopback HTTP and its MP4 is streamed into the bucket, the moov moved in front while
// the media's disk blocks are freed behind.
let dir: string;
let parts: string[];
let reference: Buffer;
let s3: TestS3;

const run = (program: string, args: string[]) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(program, args, { stdio: 'ignore' });
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${program} exited ${code}`))));
  });

const fileSource = (file: string, size: number): ByteSource => ({
  bytes: size,
  read: (range) => createReadStream(file, { start: range.start, end: range.end }),
});
const sources = () => Promise.all(parts.map(async (p) => fileSource(p, (await stat(p)).size)));
/** Every byte of a part in ffmpeg's own reads: a read through Kura fails the remux. */
const notThroughKura: ByteSource['read'] = () => {
  throw new Error('read through Kura');
};
const meta = { contentType: 'video/mp4', contentDisposition: 'attachment' };
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The durations ffprobe reads: the format's, as the record's length. */
const probedDuration = async (file: string) => {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]);
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`ffprobe exited ${code}`))));
  });
  return Number(out.trim());
};

/** Allocated bytes of a file (holes excluded), sampled every 10 ms while `work` runs; the largest seen. */
async function peakAllocated<T>(file: string, work: Promise<T>): Promise<{ result: T; peak: number; samples: number }> {
  let peak = 0;
  let samples = 0;
  let running = true;
  const sampler = (async () => {
    while (running) {
      const info = await stat(file).catch(() => null);
      if (info !== null) peak = Math.max(peak, info.blocks * 512);
      samples += 1;
      await new Promise((resolve) => setTimeout(resolve, 10)); // a measurement interval, not a wait for an event
    }
  })();
  try {
    return { result: await work, peak, samples };
  } finally {
    running = false;
    await sampler;
  }
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-remux-'));
  const ts = path.join(dir, 'all.ts');
  await run('ffmpeg', [
    ...testSignal('testsrc2=size=640x360:rate=30', 45),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-b:v',
    '6M',
    '-g',
    '60',
    '-c:a',
    'aac',
    '-f',
    'mpegts',
    ts,
  ]);
  // three parts, as a capture with two discontinuities stores them
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-i',
    ts,
    '-map',
    '0',
    '-c',
    'copy',
    '-f',
    'segment',
    '-segment_time',
    '15',
    path.join(dir, 'part-%d.ts'),
  ]);
  parts = (await readdir(dir))
    .filter((f) => f.startsWith('part-'))
    .sort()
    .map((f) => path.join(dir, f));
  const list = path.join(dir, 'list.txt');
  await writeFile(list, parts.map((p) => `file '${p}'\n`).join(''));
  const faststart = path.join(dir, 'reference.mp4');
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'concat',
    '-safe',
    '0',
    '-i',
    list,
    '-map',
    '0',
    '-c',
    'copy',
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    faststart,
  ]);
  reference = await readFile(faststart);
  s3 = await startS3();
}, 120_000);
afterAll(async () => {
  await s3.stop();
  await rm(dir, { recursive: true, force: true }); // ~60 MB of parts and outputs
});

describe('remuxing capture parts straight into the archive store', () => {
  it('writes on fs the very bytes of ffmpeg +faststart from the joined parts, ffmpeg reading the stored chunks in place', async () => {
    expect(parts.length).toBe(3);
    expect(reference.length).toBeGreaterThan(28 * 1024 * 1024); // several S3 parts, the head part uploaded last
    const root = path.join(dir, 'archive');
    const store = createFsStore(root);
    // each part stored as chunks of 4 MB, cut anywhere: ffmpeg must join them byte for byte
    const local: ByteSource[] = [];
    for (const [index, part] of parts.entries()) {
      const bytes = await readFile(part);
      const files: string[] = [];
      for (let offset = 0; offset < bytes.length; offset += 4_000_000) {
        const key = `captures/a/part-${index}/${String(offset).padStart(14, '0')}-0000`;
        await putObject(store, key, bytes.subarray(offset, offset + 4_000_000));
        files.push(store.localPath(key) as string);
      }
      local.push({ bytes: bytes.length, read: notThroughKura, files });
    }
    const tools = createFfmpegTools({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', backlogBytes: 512 * 1024 });
    const work = path.join(dir, 'work-a', 'work.mp4'); // in a folder not there yet: the worker finalizing is not the one that recorded
    const writer = await store.beginWrite('archives/a/a.mp4', meta);
    expect(writer.kind).toBe('local-file');
    const result = await tools.remux(local, writer, work);
    const stored = await readFile(path.join(root, 'archives/a/a.mp4'));
    expect(stored.equals(reference)).toBe(true);
    expect(result.stored).toEqual({ bytes: reference.length, sha256: sha256(reference) });
    expect(result.durationSeconds).toBe(await probedDuration(path.join(root, 'archives/a/a.mp4')));
    expect(Math.abs(result.durationSeconds - 45)).toBeLessThan(0.1);
    expect(await readdir(path.join(root, 'archives/a'))).toEqual(['a.mp4']);
    expect(await readdir(path.join(dir, 'work-a'))).toEqual([]); // nothing of the archive on the worker's disk
  });

  it('writes the thumbnail in the remux’s own run on fs: the same JPEG a run of its own makes, and the same archive; a stream without video still archives', async () => {
    const root = path.join(dir, 'archive-framed');
    const store = createFsStore(root);
    const tools = createFfmpegTools({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', backlogBytes: 512 * 1024 });
    const local = await Promise.all(parts.map(async (p) => ({ bytes: (await stat(p)).size, read: notThroughKura, files: [p] })));
    const frame = { atSeconds: 7.5, output: path.join(dir, 'work-f', 'thumbnail.jpg') };
    const framed = await tools.remux(local, await store.beginWrite('archives/f/f.mp4', meta), path.join(dir, 'work-f', 'work.mp4'), frame);
    expect(framed.frameWritten).toBe(true);
    expect((await readFile(path.join(root, 'archives/f/f.mp4'))).equals(reference)).toBe(true);
    const apart = path.join(dir, 'apart.jpg');
    await tools.thumbnail(local[0] as ByteSource, apart, 7.5);
    expect((await readFile(frame.output)).equals(await readFile(apart))).toBe(true);

    // audio alone: the run with the thumbnail fails (no video to take it from), the remux alone then archives it
    const audio = path.join(dir, 'audio.ts');
    await run('ffmpeg', [...testSignal('testsrc=size=64x64:rate=5', 4), '-map', '1:a', '-c:a', 'aac', '-f', 'mpegts', audio]);
    const sound = { output: path.join(dir, 'work-g', 'thumbnail.jpg'), atSeconds: 2 };
    const unframed = await tools.remux(
      [{ bytes: (await stat(audio)).size, read: notThroughKura, files: [audio] }],
      await store.beginWrite('archives/g/g.mp4', meta),
      path.join(dir, 'work-g', 'work.mp4'),
      sound,
    );
    expect(unframed.frameWritten).toBe(false);
    expect(Math.abs(unframed.durationSeconds - 4)).toBeLessThan(0.1);
    expect(await stat(sound.output).catch(() => null)).toBeNull();
  });

  it('makes an fs archive appear only whole: what a remux cut off left is never visible, and is gone after the next', async () => {
    const root = path.join(dir, 'archive-cut');
    const store = createFsStore(root);
    const tools = createFfmpegTools({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', backlogBytes: 512 * 1024 });
    // a worker killed while ffmpeg wrote: its file is left as it was, neither completed nor aborted
    const cut = await store.beginWrite('archives/d/d.mp4', meta);
    if (cut.kind !== 'local-file') throw new Error('the fs store writes local files');
    await writeFile(cut.path, reference.subarray(0, 5_000_000));
    expect(await store.stat('archives/d/d.mp4')).toBeNull();
    const next = await store.beginWrite('archives/d/d.mp4', meta);
    expect(await readdir(path.join(root, 'archives/d'))).toEqual([]); // the cut file is removed before a new one is written
    const result = await tools.remux(await sources(), next, path.join(dir, 'work-d.mp4'));
    expect((await readFile(path.join(root, 'archives/d/d.mp4'))).equals(reference)).toBe(true);
    expect(result.stored.sha256).toBe(sha256(reference));
    expect(await readdir(path.join(root, 'archives/d'))).toEqual(['d.mp4']);
  });

  it('streams into S3 the same bytes, part 1 (head first) uploaded last, with a bounded work file and no open upload', async () => {
    const store = createS3Store(s3.config);
    const tools = createFfmpegTools({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', backlogBytes: 512 * 1024 });
    const writer = await store.beginWrite('archives/b/b.mp4', meta);
    expect(writer.kind).toBe('head-last');
    const work = path.join(dir, 'work-b.mp4');
    const { result, peak, samples } = await peakAllocated(work, tools.remux(await sources(), writer, work));
    const chunks: Buffer[] = [];
    for await (const chunk of await store.read('archives/b/b.mp4')) chunks.push(chunk as Buffer);
    const object = Buffer.concat(chunks);
    expect(object.equals(reference)).toBe(true);
    expect(result.stored).toEqual({ bytes: reference.length, sha256: sha256(reference) });
    expect(result.durationSeconds).toBe(await probedDuration(path.join(dir, 'reference.mp4')));
    expect(await s3.openUploads()).toEqual([]);
    expect(samples).toBeGreaterThan(5);
    expect(peak).toBeGreaterThan(0);
    // the backlog (ffmpeg's input still in the loopback socket buffers counts against it) and the
    // media read and freed in steps: not the archive
    expect(peak).toBeLessThan(4 * 1024 * 1024);
    expect(peak * 7).toBeLessThan(reference.length);
  });

  it('hands on an output ffmpeg had finished before a first look, its header left whole for ffprobe', async () => {
    const done = path.join(dir, 'done.mp4'); // ffmpeg's output without +faststart, complete
    const list = path.join(dir, 'list.txt');
    await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'concat', '-safe', '0', '-i', list, '-map', '0', '-c', 'copy', '-f', 'mp4', done]);
    const media: Buffer[] = [];
    const writer = {
      kind: 'head-last' as const,
      writeMedia: async (bytes: Buffer) => void media.push(Buffer.from(bytes)),
      complete: async () => ({ bytes: 0, sha256: '' }),
      abort: async () => undefined,
    };
    const follower = new Mp4OutputFollower(done, writer, 512 * 1024, () => undefined);
    await follower.follow(Promise.resolve()); // ffmpeg has exited already
    const head = await follower.finish();
    await follower.close();
    expect(Buffer.concat([head, ...media]).equals(reference)).toBe(true);
    expect((await readFile(done)).subarray(0, 4).readUInt32BE(0)).toBeGreaterThan(0); // ftyp still there
    await run('ffprobe', ['-v', 'error', done]);
  });

  it('fails when a part cannot be read whole, leaving no object and no open upload', async () => {
    const store = createS3Store(s3.config);
    const tools = createFfmpegTools({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', backlogBytes: 512 * 1024 });
    const [first, second, third] = await sources();
    const broken: ByteSource = {
      bytes: (second as ByteSource).bytes,
      // every read reaching byte 1,000,000 fails there, as a store gone away would
      async *read(range) {
        let at = range.start;
        for await (const chunk of (second as ByteSource).read(range)) {
          if (at + chunk.length > 1_000_000 && at <= 1_000_000) throw new Error('the store went away mid-part');
          at += chunk.length;
          yield chunk;
        }
      },
    };
    const writer = await store.beginWrite('archives/c/c.mp4', meta);
    if (writer.kind !== 'head-last') throw new Error('the S3 store streams');
    await expect(tools.remux([first as ByteSource, broken, third as ByteSource], writer, path.join(dir, 'work-c.mp4'))).rejects.toThrow(
      /the store went away mid-part/,
    );
    expect(await store.stat('archives/c/c.mp4')).toBeNull();
    expect(await s3.openUploads()).toEqual([]);
  });
});
