import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ffmpegArgs } from '../../src/adapters/capture/ffmpeg.js';
import { mp4Duration } from '../../src/adapters/capture/mp4-duration.js';

const exec = promisify(execFile);
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-mp4-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A short MPEG-TS capture part, encoded from ffmpeg's test sources. */
async function tsPart(name: string, seconds: number, streams: 'av' | 'video' | 'audio'): Promise<string> {
  const file = path.join(dir, name);
  const video = ['-f', 'lavfi', '-i', `testsrc=size=160x90:rate=25:duration=${seconds}`];
  const audio = ['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`];
  const inputs = streams === 'av' ? [...video, ...audio] : streams === 'video' ? video : audio;
  const codecs = [...(streams !== 'audio' ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25'] : []), ...(streams !== 'video' ? ['-c:a', 'aac'] : [])];
  await exec('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...inputs, ...codecs, '-f', 'mpegts', file]);
  return file;
}

/** The parts joined into an MP4 exactly as finalize does (concat demuxer, -c copy, faststart). */
async function remux(parts: string[], output: string, extra: string[] = []): Promise<string> {
  const list = path.join(dir, `${path.basename(output)}.txt`);
  await writeFile(list, parts.map((p) => `file '${p}'\n`).join(''));
  const args = ffmpegArgs.remux(list, output);
  args.splice(args.indexOf('-movflags'), 2, ...extra);
  await exec('ffmpeg', ['-loglevel', 'error', ...args]);
  return output;
}

async function ffprobeDuration(file: string): Promise<number> {
  const { stdout } = await exec('ffprobe', ffmpegArgs.probe(file));
  return Number((JSON.parse(stdout) as { format: { duration: string } }).format.duration);
}

describe('the MP4 duration read from mvhd', () => {
  it('is what ffprobe reports for the archives finalize writes', async () => {
    const av = await tsPart('av.ts', 3.5, 'av');
    const other = await tsPart('other.ts', 2, 'av');
    const archives = [
      await remux([av], path.join(dir, 'faststart.mp4'), ['-movflags', '+faststart']),
      await remux([av, other], path.join(dir, 'two-parts.mp4'), ['-movflags', '+faststart']),
      await remux([av], path.join(dir, 'moov-at-end.mp4')),
      await remux([await tsPart('video.ts', 1.2, 'video')], path.join(dir, 'video-only.mp4'), ['-movflags', '+faststart']),
      await remux([await tsPart('audio.ts', 2.3, 'audio')], path.join(dir, 'audio-only.mp4'), ['-movflags', '+faststart']),
    ];
    for (const file of archives) {
      const expected = await ffprobeDuration(file);
      expect(expected).toBeGreaterThan(0);
      expect(await mp4Duration(file), path.basename(file)).toBe(expected);
    }
  });

  it('declines files whose mvhd is not the duration, or that have none', async () => {
    const fragmented = await remux([await tsPart('frag.ts', 2, 'av')], path.join(dir, 'fragmented.mp4'), ['-bsf:a', 'aac_adtstoasc', '-movflags', '+frag_keyframe+empty_moov']);
    expect(await mp4Duration(fragmented)).toBeNull();
    const notMp4 = path.join(dir, 'not.mp4');
    await writeFile(notMp4, 'not an mp4 at all');
    expect(await mp4Duration(notMp4)).toBeNull();
    const truncated = path.join(dir, 'truncated.mp4');
    await writeFile(truncated, Buffer.from([0, 0, 0, 24, 0x66, 0x74, 0x79, 0x70]));
    expect(await mp4Duration(truncated)).toBeNull();
  });
});
