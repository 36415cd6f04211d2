import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { faststartLayout, moveChunkOffsets } from '../../src/adapters/media/mp4-faststart.js';
import { testCodecs, testSignal } from '../support/ffmpeg-args.js';

// Real ffmpeg output: an MP4 with its moov after the media, moved to the front by Kura.
let dir: string;
let raw: string;

const run = (program: string, args: string[]) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(program, args);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${program} exited ${code}`))));
  });

/** Every packet's stream, timestamps, size, flags and data hash: what a player reads from the file. */
const packets = (file: string) =>
  run('ffprobe', [
    '-v',
    'error',
    '-show_data_hash',
    'sha256',
    '-show_entries',
    'packet=stream_index,pts,dts,duration,size,flags,data_hash',
    '-of',
    'csv',
    file,
  ]);

const topLevel = async (file: string) => {
  const bytes = await readFile(file);
  const types: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += bytes.readUInt32BE(offset)) types.push(bytes.toString('latin1', offset + 4, offset + 8));
  return types;
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-mp4-'));
  raw = path.join(dir, 'raw.mp4');
  await run('ffmpeg', [...testSignal('testsrc=size=320x180:rate=30', 6), ...testCodecs(), '-f', 'mp4', raw]);
});

describe('moving the moov of an MP4 in front of its media', () => {
  it('gives a file players read exactly as the original, moov first: the very bytes of ffmpeg’s +faststart', async () => {
    const file = await open(raw, 'r');
    const layout = await faststartLayout(file).finally(() => file.close());
    const moved = path.join(dir, 'faststart.mp4');
    const out = createWriteStream(moved);
    out.write(layout.head);
    await pipeline(createReadStream(raw, { start: layout.media.offset, end: layout.media.offset + layout.media.length - 1 }), out);

    expect(await topLevel(raw)).toEqual(['ftyp', 'free', 'mdat', 'moov']);
    expect(await topLevel(moved)).toEqual(['ftyp', 'moov', 'free', 'mdat']);
    const [before, after] = await Promise.all([packets(raw), packets(moved)]);
    expect(after.split('\n').length).toBeGreaterThan(400);
    expect(after).toBe(before);
    const ffmpegs = path.join(dir, 'ffmpeg-faststart.mp4');
    await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', raw, '-c', 'copy', '-movflags', '+faststart', ffmpegs]);
    expect((await readFile(moved)).equals(await readFile(ffmpegs))).toBe(true);
  });

  it('refuses a file that is already faststart, or not an MP4', async () => {
    const faststart = path.join(dir, 'already.mp4');
    await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', raw, '-c', 'copy', '-movflags', '+faststart', faststart]);
    const file = await open(faststart, 'r');
    await expect(faststartLayout(file).finally(() => file.close())).rejects.toThrow(/already precedes/);
    const text = path.join(dir, 'text.mp4');
    await writeFile(text, 'not an mp4 at all, just text');
    const notMp4 = await open(text, 'r');
    await expect(faststartLayout(notMp4).finally(() => notMp4.close())).rejects.toThrow(/box at 0 runs past the file/);
  });

  it('widens 32-bit chunk offsets to 64 bits when the move takes them past 4 GiB', async () => {
    const stco = Buffer.alloc(24);
    stco.writeUInt32BE(24, 0);
    stco.write('stco', 4, 'latin1');
    stco.writeUInt32BE(2, 12);
    stco.writeUInt32BE(1000, 16);
    stco.writeUInt32BE(0xffff_0000, 20);
    const wrap = (type: string, body: Buffer) => {
      const header = Buffer.alloc(8);
      header.writeUInt32BE(8 + body.length, 0);
      header.write(type, 4, 'latin1');
      return Buffer.concat([header, body]);
    };
    const moov = wrap('moov', wrap('trak', wrap('mdia', wrap('minf', wrap('stbl', stco)))));
    const moved = moveChunkOffsets(moov, 0x10_0000);
    expect(moved.length).toBe(moov.length + 8);
    expect(moved.readUInt32BE(0)).toBe(moved.length); // every enclosing box grew
    const table = moved.subarray(moved.indexOf('co64') - 4);
    expect(table.toString('latin1', 4, 8)).toBe('co64');
    expect([Number(table.readBigUInt64BE(16)), Number(table.readBigUInt64BE(24))]).toEqual([1000 + 0x10_0000, 0xffff_0000 + 0x10_0000]);
    expect(moveChunkOffsets(moov, 16).readUInt32BE(moov.length - 4)).toBe(0xffff_0000 + 16); // stays 32-bit when it fits
  });
});
