import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFfmpegTools } from '../../src/adapters/media/ffmpeg-tools.js';
import { movieDuration } from '../../src/adapters/media/mp4-duration.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { createS3Store } from '../../src/adapters/storage/s3-store.js';
import type { ArchiveStore, ByteSource } from '../../src/core/archive/ports.js';
import { hlsOutput, testCodecs, testSignal } from '../support/ffmpeg-args.js';
import { startS3, type TestS3 } from '../support/s3.js';

// The archive's length is read from the moov Kura has in hand, no longer by ffprobe: it must be
// the very number ffprobe reports for the stored file, whatever the parts were.
let dir: string;
let s3: TestS3;
const meta = { contentType: 'video/mp4', contentDisposition: 'attachment' };

const run = (program: string, args: string[]) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${program} exited ${code}: ${err}`))));
  });

/** ffprobe's format duration of a file: what the record's length was measured by before. */
const probedDuration = async (file: string) =>
  Number((await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file])).trim());

/**
 * A capture part as the recorder stores it: an HLS stream's segments (after its initialization
 * section, for fMP4) one after another in one file.
 */
async function writePart(name: string, picture: string, seconds: number, extra: string[] = []): Promise<string> {
  const hls = path.join(dir, name);
  await mkdir(hls);
  const fmp4 = extra.includes('fmp4');
  const segment = path.join(hls, fmp4 ? 'seg%03d.m4s' : 'seg%03d.ts');
  await run('ffmpeg', [...testSignal(picture, seconds), ...testCodecs(), ...hlsOutput(segment, path.join(hls, 'index.m3u8'), extra)]);
  const names = (await readdir(hls)).filter((n) => n.startsWith('seg')).sort();
  const files = [...(fmp4 ? [path.join(hls, 'init.mp4')] : []), ...names.map((n) => path.join(hls, n))];
  const part = path.join(dir, `${name}.part`);
  await writeFile(part, Buffer.concat(await Promise.all(files.map((f) => readFile(f)))));
  return part;
}

const sourceOf = async (file: string): Promise<ByteSource> => ({
  bytes: (await stat(file)).size,
  read: (range) => createReadStream(file, { start: range.start, end: range.end }),
});

/** Remuxes `parts` into `store` under `key`; says the duration Kura found and where a copy of the stored file lies. */
async function remux(store: ArchiveStore, key: string, parts: string[]): Promise<{ durationSeconds: number; file: string }> {
  const tools = createFfmpegTools({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', backlogBytes: 1024 * 1024 });
  const writer = await store.beginWrite(key, meta);
  const { durationSeconds } = await tools.remux(await Promise.all(parts.map(sourceOf)), writer, path.join(dir, 'work', `${path.basename(key)}.work`));
  const file = path.join(dir, `${path.basename(key)}.stored`);
  const bytes: Buffer[] = [];
  for await (const chunk of await store.read(key)) bytes.push(chunk as Buffer);
  await writeFile(file, Buffer.concat(bytes));
  return { durationSeconds, file };
}

let ts: string;
let fmp4: string;
let afterBreak: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-duration-'));
  ts = await writePart('ts', 'testsrc=size=320x180:rate=30', 7);
  fmp4 = await writePart('fmp4', 'testsrc=size=320x180:rate=25', 6, ['-hls_segment_type', 'fmp4', '-hls_fmp4_init_filename', 'init.mp4']);
  afterBreak = await writePart('after-break', 'testsrc=size=640x360:rate=30', 4); // timestamps start over, another size
  s3 = await startS3();
}, 60_000);
afterAll(async () => {
  await s3.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("an archive's duration, read from its moov", () => {
  it.each([
    ['an MPEG-TS part', () => [ts]],
    ['a fragmented MP4 part', () => [fmp4]],
    ['parts across a discontinuity, each starting its timestamps over', () => [ts, afterBreak]],
    ['an fMP4 part and an MPEG-TS part after it', () => [fmp4, afterBreak]],
  ])('is the duration ffprobe reports for %s, on fs and on S3', async (_name, parts) => {
    const onFs = await remux(createFsStore(path.join(dir, 'archive')), `archives/${_name.length}/fs.mp4`, parts());
    const onS3 = await remux(createS3Store(s3.config), `archives/${_name.length}/s3.mp4`, parts());
    const probed = await probedDuration(onFs.file);
    expect(probed).toBeGreaterThan(3);
    expect(onFs.durationSeconds).toBe(probed);
    expect(onS3.durationSeconds).toBe(await probedDuration(onS3.file));
  });

  it('reads a version 1 mvhd, whose times and duration are 64-bit, as ffprobe rounds it (to microseconds)', () => {
    const mvhd = Buffer.alloc(120);
    mvhd.writeUInt32BE(120, 0);
    mvhd.write('mvhd', 4, 'latin1');
    mvhd.writeUInt8(1, 8);
    mvhd.writeUInt32BE(90_000, 28); // time scale
    mvhd.writeBigUInt64BE(6_000_000_000_001n, 32); // over 2^32: 18.5 hours at 90 kHz, and a tick
    const moov = Buffer.concat([Buffer.from([0, 0, 0, 128]), Buffer.from('moov', 'latin1'), mvhd]);
    expect(movieDuration(moov)).toBe(66_666_666.666678);
  });
});
