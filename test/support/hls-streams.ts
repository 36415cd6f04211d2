import { spawn } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { hlsOutput, testCodecs, testSignal } from './ffmpeg-args.js';

// Finished HLS streams written ahead of a test (none of them live), and the reference remux.

/** The reference: the fixture's own segments remuxed by plain ffmpeg. */
export async function remuxReference(playlist: string, output: string): Promise<void> {
  await runFfmpeg(['-hide_banner', '-loglevel', 'error', '-y', '-i', playlist, '-c', 'copy', output]);
}

/**
 * Writes a finished stream whose second half restarts its timestamps at a different resolution
 * after `#EXT-X-DISCONTINUITY` (as an ad break or an encoder restart does): 5 s at 320x180, then
 * 5 s at 640x360, 1 s segments, 30 fps.
 */
export async function writeDiscontinuityStream(liveDir: string): Promise<void> {
  for (const [name, size] of [
    ['a', '320x180'],
    ['b', '640x360'],
  ] as const) {
    await runFfmpeg([
      ...testSignal(`testsrc=size=${size}:rate=30`, 5),
      ...testCodecs(),
      ...hlsOutput(path.join(liveDir, `${name}%02d.ts`), path.join(liveDir, `${name}.m3u8`)),
    ]);
  }
  const media = (text: string) => text.split('\n').filter((line) => line.startsWith('#EXTINF') || line.endsWith('.ts'));
  const first = await readFile(path.join(liveDir, 'a.m3u8'), 'utf8');
  const second = await readFile(path.join(liveDir, 'b.m3u8'), 'utf8');
  const header = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:1', '#EXT-X-MEDIA-SEQUENCE:0'];
  await writeFile(path.join(liveDir, 'index.m3u8'), [...header, ...media(first), '#EXT-X-DISCONTINUITY', ...media(second), '#EXT-X-ENDLIST', ''].join('\n'));
}

/**
 * Writes a finished 5 s fMP4 stream (320x180, 30 fps, 1 s segments) kept in one file: its
 * initialization section and every segment are byte ranges of `media.mp4`
 * (`#EXT-X-MAP:...,BYTERANGE=` and `#EXT-X-BYTERANGE`).
 */
export async function writeSingleFileStream(liveDir: string): Promise<void> {
  const singleFile = ['-hls_playlist_type', 'vod', '-hls_segment_type', 'fmp4', '-hls_flags', 'single_file'];
  await runFfmpeg([
    ...testSignal('testsrc=size=320x180:rate=30', 5),
    ...testCodecs(),
    ...hlsOutput(path.join(liveDir, 'media.mp4'), path.join(liveDir, 'index.m3u8'), singleFile),
  ]);
}

/** The AES-128 key `writeEncryptedStream` encrypts with, served as `key.bin`. */
export const FIXTURE_KEY = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');

/**
 * Writes a finished 4 s MPEG-TS stream (320x180, 30 fps, 1 s segments, media sequence from 10)
 * encrypted as `method` says. For AES-128 the segments are encrypted here with FIXTURE_KEY: the
 * first two with the media sequence number as IV (the key line names none), the last two with an
 * explicit IV, as RFC 8216 §5.2 allows both.
 */
export async function writeEncryptedStream(liveDir: string, method: 'AES-128' | 'SAMPLE-AES'): Promise<void> {
  const plainDir = path.join(liveDir, 'plain');
  await mkdir(plainDir);
  const silent = { silent: true };
  await runFfmpeg([
    ...testSignal('testsrc=size=320x180:rate=30', 4, silent),
    ...testCodecs(silent),
    ...hlsOutput(path.join(plainDir, 'p%02d.ts'), path.join(plainDir, 'index.m3u8')),
  ]);
  const explicitIv = Buffer.from('f0e0d0c0b0a090807060504030201000', 'hex');
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:1', '#EXT-X-MEDIA-SEQUENCE:10'];
  for (let i = 0; i < 4; i++) {
    const sequence = 10 + i;
    const iv = i < 2 ? null : explicitIv;
    if (i === 0) lines.push(`#EXT-X-KEY:METHOD=${method},URI="key.bin"`);
    if (i === 2) lines.push(`#EXT-X-KEY:METHOD=${method},URI="key.bin",IV=0x${explicitIv.toString('hex')}`);
    const plain = await readFile(path.join(plainDir, `p0${i}.ts`));
    const cipher = createCipheriv('aes-128-cbc', FIXTURE_KEY, iv ?? sequenceIv(sequence));
    await writeFile(path.join(liveDir, `seg${String(sequence).padStart(5, '0')}.ts`), Buffer.concat([cipher.update(plain), cipher.final()]));
    lines.push('#EXTINF:1.000000,', `seg${String(sequence).padStart(5, '0')}.ts`);
  }
  await writeFile(path.join(liveDir, 'key.bin'), FIXTURE_KEY);
  await writeFile(path.join(liveDir, 'index.m3u8'), [...lines, '#EXT-X-ENDLIST', ''].join('\n'));
}

function sequenceIv(sequence: number): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(sequence, 12);
  return iv;
}

/** Runs ffmpeg to its end; rejects with its exit code and error output. */
export function runFfmpeg(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${stderr}`))));
  });
}
