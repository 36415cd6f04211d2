import { execFile } from 'node:child_process';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fragmentBytes, makeFragments, type FragmentMaterial, type FragmentRepresentation } from '../support/youtube-fragments.js';

// The fragment material the googlevideo STAND-IN serves (research §3): each sq answer is the
// muxer's init ‖ chunk, and what yt-dlp and ytarchive do with them — concatenate the answers of an
// itag in sq order, then let ffmpeg copy video and audio into one file — must give the whole stream.

const run = promisify(execFile);

/** The sq answers of one itag, concatenated in order, written to `file` (yt-dlp's `.f<itag>` file). */
async function concatenated(representation: FragmentRepresentation, material: FragmentMaterial, file: string): Promise<string> {
  const answers = [];
  for (let sq = 0; sq < material.fragmentCount; sq++) answers.push(await fragmentBytes(representation, sq));
  await writeFile(file, Buffer.concat(answers));
  return file;
}

/** What ffprobe finds in a muxed file: its duration, its video frames, and where its last audio packet ends. */
async function probe(file: string): Promise<{ duration: number; videoFrames: number; audioEnd: number }> {
  const ffprobe = async (...args: string[]) => JSON.parse((await run('ffprobe', ['-v', 'error', '-of', 'json', ...args, file])).stdout);
  const format = await ffprobe('-count_frames', '-select_streams', 'v:0', '-show_entries', 'format=duration:stream=nb_read_frames');
  const audio = await ffprobe('-select_streams', 'a:0', '-show_entries', 'packet=pts_time,duration_time');
  const last = audio.packets.at(-1);
  return {
    duration: Number(format.format.duration),
    videoFrames: Number(format.streams[0].nb_read_frames),
    audioEnd: Number(last.pts_time) + Number(last.duration_time),
  };
}

describe.each([
  { codecs: 'h264', targetSeconds: 2, ext: 'mp4', audioExt: 'm4a', itags: [160, 133, 140], mimes: ['video/mp4', 'video/mp4', 'audio/mp4'] },
  { codecs: 'vp9', targetSeconds: 1, ext: 'webm', audioExt: 'webm', itags: [278, 242, 251], mimes: ['video/webm', 'video/webm', 'audio/webm'] },
] as const)('$codecs fragment material', ({ codecs, targetSeconds, ext, audioExt, itags, mimes }) => {
  const seconds = 10;

  it('is three itags (two video sizes, one audio) of seconds / targetSeconds fragments each', async () => {
    const material = await makeFragments({ codecs, seconds, targetSeconds });
    expect(material.fragmentCount).toBe(seconds / targetSeconds);
    expect(material.representations.map((r) => r.itag)).toEqual(itags);
    expect(material.representations.map((r) => r.mime)).toEqual(mimes);
    expect(material.representations.map((r) => [r.width, r.height])).toEqual([
      [256, 144],
      [426, 240],
      [null, null],
    ]);
    for (const representation of material.representations) expect(representation.chunkPaths).toHaveLength(material.fragmentCount);
    const [small, , audio] = material.representations;
    expect(small?.codecs).toMatch(codecs === 'h264' ? /^avc1\.4d40[0-9a-f]{2}$/ : /^vp9$/);
    expect(audio?.codecs).toBe(codecs === 'h264' ? 'mp4a.40.2' : 'opus');
  });

  it('is made once: asking again (as another test file would) finds the same files', async () => {
    const first = await makeFragments({ codecs, seconds, targetSeconds });
    const again = await makeFragments({ codecs, seconds, targetSeconds });
    expect(again.representations.map((r) => r.initPath)).toEqual(first.representations.map((r) => r.initPath));
  });

  it('concatenated in sq order and muxed with ffmpeg -c copy, gives the whole duration and every frame', async () => {
    const material = await makeFragments({ codecs, seconds, targetSeconds });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-fragments-mux-'));
    for (const video of material.representations.slice(0, 2)) {
      const videoFile = await concatenated(video, material, path.join(dir, `v${video.itag}.f${video.itag}.${ext}`));
      const audio = material.representations[2] as FragmentRepresentation;
      const audioFile = await concatenated(audio, material, path.join(dir, `a.f${audio.itag}.${audioExt}`));
      const out = path.join(dir, `out-${video.itag}.${ext}`);
      await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', videoFile, '-i', audioFile, '-c', 'copy', '-map', '0:v:0', '-map', '1:a:0', out]);
      const muxed = await probe(out);
      expect(muxed.videoFrames).toBe(seconds * 30);
      expect(muxed.duration).toBeCloseTo(seconds, 1);
      expect(muxed.audioEnd).toBeCloseTo(seconds, 1);
    }
  });
});

it('refuses a length that is not a whole number of fragments', async () => {
  await expect(makeFragments({ codecs: 'h264', seconds: 5, targetSeconds: 2 })).rejects.toThrow(/whole number/);
});

it('made by two makers at once, is the one the first to finish renamed into place (the other leaves nothing behind)', async () => {
  const options = { codecs: 'h264', seconds: 3, targetSeconds: 1, fps: 10 } as const;
  const [one, other] = await Promise.all([makeFragments(options), makeFragments(options)]);
  expect(other.representations.map((r) => r.chunkPaths)).toEqual(one.representations.map((r) => r.chunkPaths));
  const materialDir = path.dirname(one.representations[0]!.initPath);
  expect((await readdir(path.dirname(materialDir))).filter((name) => name.startsWith(`.making-${path.basename(materialDir)}`))).toEqual([]);
  expect((await readdir(materialDir)).filter((name) => name.startsWith('chunk-0-'))).toHaveLength(3);
});
