// Section "floor": what any Kura must spend, whatever its code, against the targets' bare ffmpeg.
// A lone capture: the least a node recorder does (floor-recorder.ts: fetch, append, fdatasync) on
// the same live stream as bare ffmpeg at the same time, then the steps the archive needs that bare
// `-c copy` skips — the +faststart remux of the part, Kura's thumbnail command, and the sha256 of
// the archive by OpenSSL (the fastest there is here; Kura's node hash reads the same bytes). The
// 10-minute finalize: bare concat + faststart against it plus thumbnail and sha256.
// A floor above a target means the target cannot be met by its own terms on this machine.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ffmpegArgs } from '../../src/adapters/media/ffmpeg-args.js';
import { concatFaststart, median, recordLive, timed, type Usage } from './bare-ffmpeg.js';
import { onAir, type BenchContext } from './context.js';
import type { EncodedStream } from './encoded-stream.js';
import { serveLive } from './live-server.js';
import { fixed, FLOOR_HEADER, floorRow, section, table } from './markdown.js';

const FLOOR_RECORDER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'floor-recorder.js');

/** Kura's thumbnail command on `video` (a frame at min(10 s, half its length)), and OpenSSL's sha256 of `archive`. */
async function archiveExtras(video: string, seconds: number, archive: string, cwd: string): Promise<{ thumbnail: Usage; sha256: Usage }> {
  const thumbnail = await timed(['ffmpeg', ...ffmpegArgs.thumbnail(video, path.join(cwd, 'thumbnail.jpg'), Math.min(10, seconds / 2), 'file')], cwd);
  const sha256 = await timed(['openssl', 'dgst', '-sha256', archive], cwd);
  return { thumbnail, sha256 };
}

async function lone(ctx: BenchContext): Promise<string[]> {
  const { encoded, bytes } = await ctx.stream(ctx.options.seconds);
  const live = await serveLive(encoded, bytes, ctx.options.window);
  const part = path.join(ctx.root, 'floor-part.ts');
  const durablePart = path.join(ctx.root, 'floor-durable-part.ts');
  const database = await ctx.database('floor');
  try {
    live.start();
    await onAir(live.url('bare'));
    const [bare, recorder, durableRecorder] = await Promise.all([
      recordLive(live.url('bare'), path.join(ctx.root, 'floor-bare.mp4'), ctx.root),
      timed([process.execPath, FLOOR_RECORDER, live.url('floor'), part], ctx.root),
      timed([process.execPath, FLOOR_RECORDER, live.url('floor-durable'), durablePart, database], ctx.root),
    ]);
    const loopOf = async (file: string) => JSON.parse(await readFile(`${file}.json`, 'utf8')) as { loopCpuSeconds: number; segments: number };
    const { loopCpuSeconds, segments } = await loopOf(part);
    const durable = await loopOf(durablePart);
    const archive = path.join(ctx.root, 'floor-archive.mp4');
    const remux = await concatFaststart([part], archive, ctx.root);
    const extras = await archiveExtras(part, ctx.options.seconds, archive, ctx.root);
    const recordingAndRemux = loopCpuSeconds + remux.cpuSeconds;
    const all = recordingAndRemux + extras.thumbnail.cpuSeconds + extras.sha256.cpuSeconds;
    const allDurable = all - loopCpuSeconds + durable.loopCpuSeconds;
    return [
      table(
        ['step', 'CPU s'],
        [
          [`bare ffmpeg -live_start_index 0 -i URL -c copy (${segments}/${encoded.segments.length} segments to the floor recorder)`, fixed(bare.cpuSeconds)],
          ['floor recorder: fetch, writev, fdatasync (loop; its process with node start-up)', `${fixed(loopCpuSeconds)} (${fixed(recorder.cpuSeconds)})`],
          [
            `the same, resumable: and a PostgreSQL row per segment once it is on disk (${durable.segments} segments)`,
            `${fixed(durable.loopCpuSeconds)} (${fixed(durableRecorder.cpuSeconds)})`,
          ],
          ['remux of its part, +faststart', fixed(remux.cpuSeconds)],
          ["Kura's thumbnail command", fixed(extras.thumbnail.cpuSeconds)],
          ['sha256 of the archive (openssl)', fixed(extras.sha256.cpuSeconds)],
        ],
      ),
      '',
      table(FLOOR_HEADER, [
        floorRow('floor of (recording + remux) / bare ffmpeg', recordingAndRemux / bare.cpuSeconds, 1.5, '×'),
        floorRow('floor of queued → archive stored / bare ffmpeg', all / bare.cpuSeconds, 2.5, '×'),
        floorRow('the same, resumable after a SIGKILL (a row per segment)', allDurable / bare.cpuSeconds, 2.5, '×'),
      ]),
    ];
  } finally {
    await live.close();
  }
}

async function finalize(ctx: BenchContext, encoded: EncodedStream): Promise<string[]> {
  const archive = path.join(ctx.root, 'floor-long.mp4');
  const runs: Usage[] = [];
  for (let i = 0; i < ctx.options.bareRuns; i++) runs.push(await concatFaststart([encoded.partFile], archive, ctx.root));
  const bare = median(runs.map((r) => r.cpuSeconds));
  const extras = await archiveExtras(encoded.partFile, ctx.options.longSeconds, archive, ctx.root);
  const floor = bare + extras.thumbnail.cpuSeconds + extras.sha256.cpuSeconds;
  return [
    table(
      ['step', 'CPU s'],
      [
        [`bare ffmpeg -f concat -c copy -movflags +faststart (median of ${runs.length})`, fixed(bare)],
        ["Kura's thumbnail command", fixed(extras.thumbnail.cpuSeconds)],
        ['sha256 of the archive (openssl)', fixed(extras.sha256.cpuSeconds)],
      ],
    ),
    '',
    table(FLOOR_HEADER, [floorRow('floor of finalize / bare ffmpeg (fs; S3 adds its transfers)', floor / bare, 1.3, '×')]),
  ];
}

export async function runFloor(ctx: BenchContext): Promise<void> {
  const short = await lone(ctx);
  section(`1f. Floor of one ${ctx.options.seconds} s capture: the least any node recorder and the archive's steps cost`, short);
  const { encoded } = await ctx.stream(ctx.options.longSeconds);
  section(`2f. Floor of a ${ctx.options.longSeconds} s finalize: the remux the target counts, plus thumbnail and sha256`, await finalize(ctx, encoded));
}
