import { execFile } from 'node:child_process';
import { mkdtemp, open, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { topLevelBoxes } from '../../src/adapters/media/mp4-faststart.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import type { LivestreamInput } from '../../src/core/records/livestream.js';
import { putObject } from './archives.js';

const run = promisify(execFile);

/** A faststart MP4 made by ffmpeg as finalize makes an archive: H.264 (a keyframe every 2 s) and AAC. */
export interface LongArchive {
  file: string;
  bytes: number;
  seconds: number;
}

/**
 * An archive `minutes` long, made quickly: 10 s encoded once (small picture, 10 frames a second,
 * B-frames, a keyframe every 2 s as YouTube and HLS encoders place them), then joined to itself
 * with stream copy, so the long file costs no encoding.
 */
export async function makeLongArchive(minutes: number): Promise<LongArchive> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-long-archive-'));
  const piece = path.join(dir, 'piece.ts');
  await run('ffmpeg', [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=192x108:rate=10', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'],
    ...['-t', '10', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '20', '-keyint_min', '20', '-sc_threshold', '0', '-bf', '2'],
    ...['-c:a', 'aac', '-b:a', '32k', '-f', 'mpegts', piece],
  ]);
  const list = path.join(dir, 'list.txt');
  await writeFile(list, "file 'piece.ts'\n".repeat(minutes * 6));
  const file = path.join(dir, 'archive.mp4');
  await run('ffmpeg', ['-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', '-movflags', '+faststart', '-f', 'mp4', file]);
  return { file, bytes: (await stat(file)).size, seconds: minutes * 60 };
}

/** Sizes of the first `count` packets of `stream` (v:0, a:0) of a media file, from `fromSeconds` on (from its start without): equal sizes in a clip and its source show a stream copy. */
export async function packetSizes(file: string, stream: string, count: number, fromSeconds?: number): Promise<number[]> {
  const { stdout } = await run('ffprobe', [
    ...['-v', 'error', '-select_streams', stream, '-read_intervals', `${fromSeconds ?? ''}%+#${count}`],
    ...['-show_entries', 'packet=size', '-of', 'csv=p=0', file],
  ]);
  // MPEG-TS packets carry side data, which adds empty fields and lines
  return stdout
    .split('\n')
    .map((line) => line.split(',')[0] ?? '')
    .filter((size) => size !== '')
    .map(Number);
}

/** The streams and duration of a media file as ffprobe reads them. */
export async function probe(file: string): Promise<{ seconds: number; codecs: string[] }> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=codec_name', '-of', 'json', file]);
  const report = JSON.parse(stdout) as { format: { duration: string }; streams: Array<{ codec_name: string }> };
  return { seconds: Number(report.format.duration), codecs: report.streams.map((s) => s.codec_name) };
}

/** The time of the last keyframe at or before `seconds` in a file's video, from the packets' key flags around it (not by seeking, as the clip does). */
export async function keyframeAtOrBefore(file: string, seconds: number): Promise<number> {
  const { stdout } = await run('ffprobe', [
    ...['-v', 'error', '-select_streams', 'v:0', '-read_intervals', `${Math.max(0, seconds - 10)}%${seconds + 10}`],
    ...['-show_entries', 'packet=pts_time,flags', '-of', 'csv=p=0', file],
  ]);
  const keyframes = stdout
    .trim()
    .split('\n')
    .filter((line) => line.split(',')[1]?.startsWith('K') === true)
    .map((line) => Number(line.split(',')[0]));
  return Math.max(...keyframes.filter((time) => time <= seconds));
}

/** Where an MP4's `moov` ends (its index; a faststart file's is in front of its media). */
export async function headOf(file: string): Promise<{ moovEnd: number }> {
  const handle = await open(file);
  try {
    const boxes = await topLevelBoxes(handle);
    const moov = boxes.find((box) => box.type === 'moov');
    if (moov === undefined) throw new Error(`${file} has no moov`);
    return { moovEnd: moov.offset + moov.size };
  } finally {
    await handle.close();
  }
}

/** The MD5 of each of the first `count` decoded video frames of `input` (a file, or `concat:a.ts|b.ts`): the same pictures in a clip and its source, whatever their containers. */
export async function frameHashes(input: string, count: number): Promise<string[]> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', input, '-map', '0:v:0', '-frames:v', String(count), '-f', 'framemd5', '-']);
  return stdout
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split(',').at(-1)?.trim() ?? '');
}

/** The chapters of an MP4 as ffprobe reads them: start and end in seconds, and title. */
export async function chaptersOfFile(file: string): Promise<Array<{ start: number; end: number; title: string }>> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_chapters', '-of', 'json', file]);
  const { chapters } = JSON.parse(stdout) as { chapters: Array<{ start_time: string; end_time: string; tags?: { title?: string } }> };
  return chapters.map((c) => ({ start: Number(c.start_time), end: Number(c.end_time), title: c.tags?.title ?? '' }));
}

/** How many packets each stream of a media file holds, by codec type (`{video: 12000, audio: 56250}`). */
export async function packetCount(file: string): Promise<Record<string, number>> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-count_packets', '-show_entries', 'stream=codec_type,nb_read_packets', '-of', 'json', file]);
  const { streams } = JSON.parse(stdout) as { streams: Array<{ codec_type: string; nb_read_packets: string }> };
  return Object.fromEntries(streams.map((s) => [s.codec_type, Number(s.nb_read_packets)]));
}

/** Stores `archive` in `store` as the video of record `id`: the archive facts of a finished record (finishedRecord's second argument). */
export async function storeAsVideo(store: ArchiveStore, id: string, archive: LongArchive): Promise<NonNullable<LivestreamInput['archive']>> {
  const videoKey = objectKeys.video(id);
  const { bytes, sha256 } = await putObject(store, videoKey, await readFile(archive.file));
  return { fileSizeBytes: bytes, sha256, lengthSeconds: archive.seconds, videoKey, logKey: null, thumbnailKey: null, externalUrl: null };
}
