// Decisions: docs/decisions/0032-capture-targets-and-floors.md
// Section "floor": what any Kura must spend, whatever its code, against the targets' bare ffmpeg.
// A lone capture: the least a node recorder does (floor-recorder.ts: fetch, append, fdatasync) on
// the same live stream as bare ffmpeg at the same time (`--bare-runs` of each at once), then the
// steps the archive needs that bare `-c copy` skips — the +faststart remux of the part, Kura's
// thumbnail command, and the sha256 of the archive by OpenSSL (the fastest there is here; Kura's
// node hash reads the same bytes). The 10-minute finalize: bare concat + faststart against it plus
// thumbnail and sha256. Every figure is a median, its range shown.
// A floor above a target means the target cannot be met by its own terms on this machine.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ffmpegArgs } from '../../src/adapters/media/ffmpeg-args.js';
import { concatFaststart, recordLiveRuns, repeated, spread, timed, type Spread } from './bare-ffmpeg.js';
import { onAir, type BenchContext } from './context.js';
import type { EncodedStream } from './encoded-stream.js';
import { serveLive, type LiveStream } from './live-server.js';
import { fixed, fixedSpread, FLOOR_HEADER, floorRow, section, table } from './markdown.js';

const FLOOR_RECORDER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'floor-recorder.js');

/** Kura's thumbnail command on `video` (a frame at min(10 s, half its length)), and OpenSSL's sha256 of `archive`: medians of `runs`. */
async function archiveExtras(video: string, seconds: number, archive: string, cwd: string, runs: number): Promise<{ thumbnail: Spread; sha256: Spread }> {
  const thumbnail = await repeated(runs, () =>
    timed(['ffmpeg', ...ffmpegArgs.thumbnail(video, path.join(cwd, 'thumbnail.jpg'), Math.min(10, seconds / 2), 'file')], cwd),
  );
  const sha256 = await repeated(runs, () => timed(['openssl', 'dgst', '-sha256', archive], cwd));
  return { thumbnail: thumbnail.cpu, sha256: sha256.cpu };
}

/** `runs` floor recorders at once (one viewer URL and part file each; with databases, resumable): their loops' CPU, their processes', segments. */
async function floorLoops(live: LiveStream, name: string, root: string, databases: Array<string | null>) {
  const runs = await Promise.all(
    databases.map(async (database, i) => {
      const part = path.join(root, `${name}-${i}.ts`);
      const usage = await timed([process.execPath, FLOOR_RECORDER, live.url(`${name}-${i}`), part, ...(database === null ? [] : [database])], root);
      const loop = JSON.parse(await readFile(`${part}.json`, 'utf8')) as { loopCpuSeconds: number; segments: number };
      return { part, process: usage.cpuSeconds, ...loop };
    }),
  );
  return {
    loop: spread(runs.map((r) => r.loopCpuSeconds)),
    process: spread(runs.map((r) => r.process)),
    segments: Math.min(...runs.map((r) => r.segments)),
    part: (runs[0] as (typeof runs)[number]).part,
  };
}

/**
 * `bareRuns` each of bare ffmpeg, the floor recorder and the resumable one, all at once on the same
 * broadcast (together ~5 % of one core), then the archive's steps as many times: medians, so one
 * run's luck does not decide a verdict.
 */
async function lone(ctx: BenchContext): Promise<string[]> {
  const { encoded, bytes } = await ctx.stream(ctx.options.seconds);
  const live = await serveLive(encoded, bytes, ctx.options.window);
  const runs = ctx.options.bareRuns;
  const databases = await Promise.all(Array.from({ length: runs }, (_, i) => ctx.database(`floor_${i}`)));
  try {
    live.start();
    await onAir(live.url('floor-bare-0'));
    const [bare, floor, durable] = await Promise.all([
      recordLiveRuns(live.url, 'floor-bare', runs, ctx.root),
      floorLoops(live, 'floor', ctx.root, new Array<string | null>(runs).fill(null)),
      floorLoops(live, 'floor-durable', ctx.root, databases),
    ]);
    const archive = path.join(ctx.root, 'floor-archive.mp4');
    const { cpu: remux } = await repeated(runs, () => concatFaststart([floor.part], archive, ctx.root));
    const extras = await archiveExtras(floor.part, ctx.options.seconds, archive, ctx.root, runs);
    const recordingAndRemux = floor.loop.median + remux.median;
    const archiveSteps = remux.median + extras.thumbnail.median + extras.sha256.median;
    const ratio = (cpu: number) => cpu / bare.cpu.median;
    return [
      `Medians of ${runs} runs (range in brackets); the recorders ran at once on one broadcast.`,
      '',
      table(
        ['step', 'CPU s'],
        [
          [`bare ffmpeg -live_start_index 0 -i URL -c copy`, fixedSpread(bare.cpu)],
          [
            `floor recorder: fetch, writev, fdatasync (${floor.segments}/${encoded.segments.length} segments; loop, then its process with node start-up)`,
            `${fixedSpread(floor.loop)}; ${fixed(floor.process.median)}`,
          ],
          [
            `the same, resumable: and a PostgreSQL row per segment once it is on disk (${durable.segments} segments)`,
            `${fixedSpread(durable.loop)}; ${fixed(durable.process.median)}`,
          ],
          ['remux of its part, +faststart', fixedSpread(remux)],
          ["Kura's thumbnail command", fixedSpread(extras.thumbnail)],
          ['sha256 of the archive (openssl)', fixedSpread(extras.sha256)],
        ],
      ),
      '',
      table(FLOOR_HEADER, [
        // a Kura that let ffmpeg record and ran no node at all: the bound on any design
        floorRow('ffmpeg alone (bare recording, remux, thumbnail, sha256) / bare ffmpeg', ratio(bare.cpu.median + archiveSteps), 2.5, '×'),
        floorRow('floor of (recording + remux) / bare ffmpeg', ratio(recordingAndRemux), 1.5, '×'),
        floorRow('floor of queued → archive stored / bare ffmpeg', ratio(floor.loop.median + archiveSteps), 2.5, '×'),
        floorRow('the same, resumable after a SIGKILL (a row per segment)', ratio(durable.loop.median + archiveSteps), 2.5, '×'),
      ]),
    ];
  } finally {
    await live.close();
  }
}

async function finalize(ctx: BenchContext, encoded: EncodedStream): Promise<string[]> {
  const archive = path.join(ctx.root, 'floor-long.mp4');
  const { cpu: bare } = await repeated(ctx.options.bareRuns, () => concatFaststart([encoded.partFile], archive, ctx.root));
  const extras = await archiveExtras(encoded.partFile, ctx.options.longSeconds, archive, ctx.root, ctx.options.bareRuns);
  const floor = bare.median + extras.thumbnail.median + extras.sha256.median;
  return [
    table(
      ['step', 'CPU s'],
      [
        [`bare ffmpeg -f concat -c copy -movflags +faststart (median of ${bare.runs}, range)`, fixedSpread(bare)],
        ["Kura's thumbnail command", fixedSpread(extras.thumbnail)],
        ['sha256 of the archive (openssl)', fixedSpread(extras.sha256)],
      ],
    ),
    '',
    table(FLOOR_HEADER, [floorRow('floor of finalize / bare ffmpeg (fs; S3 adds its transfers)', floor / bare.median, 1.3, '×')]),
  ];
}

export async function runFloor(ctx: BenchContext): Promise<void> {
  const short = await lone(ctx);
  section(`1f. Floor of one ${ctx.options.seconds} s capture: the least any node recorder and the archive's steps cost`, short);
  const { encoded } = await ctx.stream(ctx.options.longSeconds);
  section(`2f. Floor of a ${ctx.options.longSeconds} s finalize: the remux the target counts, plus thumbnail and sha256`, await finalize(ctx, encoded));
}
