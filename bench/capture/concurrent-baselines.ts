// The baselines of section "concurrent": as many bare ffmpeg and streamlink recordings of the same
// live stream as Kura has captures, all at once beside them, and Kura's whole tree per capture
// against them (issue 35: ≤ 0.8× streamlink's per recording).
import { probe } from '../../test/support/hls-fixture.js';
import { recordLiveRuns, type LiveRuns } from './bare-ffmpeg.js';
import type { LiveStream } from './live-server.js';
import { fixed, fixedSpread, table, TARGET_HEADER, targetRow } from './markdown.js';
import { total, type Cost } from './phases.js';
import { recordStreamlink, STREAMLINK_COMMAND, streamlinkVersion } from './streamlink.js';

type Recorded = LiveRuns & { frames: number[] };
export interface Baselines {
  ffmpeg: Recorded;
  streamlink: Recorded | null;
}

const LIMIT = 0.8;

/** `count` bare ffmpeg and `count` streamlink recordings at once (streamlink when installed), each under a viewer URL of its own. */
export async function recordBaselines(live: LiveStream, count: number, cwd: string): Promise<Baselines> {
  const framesOf = async (runs: LiveRuns): Promise<Recorded> => ({ ...runs, frames: await Promise.all(runs.files.map(async (f) => (await probe(f)).frames)) });
  const ffmpeg = recordLiveRuns(live.url, 'concurrent-bare', count, cwd);
  const streamlink = streamlinkVersion() === null ? null : recordLiveRuns(live.url, 'concurrent-streamlink', count, cwd, recordStreamlink, 'ts');
  return { ffmpeg: await framesOf(await ffmpeg), streamlink: streamlink === null ? null : await framesOf(await streamlink) };
}

/** The baselines' table, and Kura's whole tree per capture against each. */
export function baselineLines(count: number, kura: Cost, b: Baselines, sourceFrames: number): string[] {
  const perCapture = total(kura) / count;
  const row = (name: string, r: Recorded) => [
    name,
    fixedSpread(r.cpu),
    fixed(perCapture / r.cpu.median),
    `${r.frames.filter((f) => f === sourceFrames).length} of ${count}`,
  ];
  const rows = [row('bare ffmpeg -live_start_index 0 -i URL -c copy', b.ffmpeg)];
  if (b.streamlink !== null) rows.push(row(STREAMLINK_COMMAND, b.streamlink));
  rows.push([`Kura whole tree, per capture (PostgreSQL ${fixed(kura.postgres / count)} of it)`, fixed(perCapture), '', '']);
  return [
    table([`${count} recordings at once, beside Kura's`, 'CPU s per recording: median (range)', 'Kura ÷ it', `whole (${sourceFrames} frames)`], rows),
    '',
    b.streamlink === null
      ? 'streamlink is not installed: no ratio against it.'
      : table(TARGET_HEADER, [
          targetRow(`Kura whole tree per capture / streamlink per recording, ${count} at once (issue 35)`, perCapture / b.streamlink.cpu.median, LIMIT, '×'),
        ]),
  ];
}
