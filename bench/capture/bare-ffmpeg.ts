// The baselines: bare ffmpeg doing the same job as Kura, measured by GNU time (user + system CPU,
// peak RSS), and the sha256 of what it wrote.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface Usage {
  cpuSeconds: number;
  peakRssMb: number;
}

const QUIET = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y'];

/** Runs a command under GNU time; resolves with its CPU (user + system, children included) and peak RSS. */
export function timed(command: string[], cwd: string): Promise<Usage> {
  const report = path.join(cwd, `time-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.txt`);
  const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', report, ...command], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise<Usage>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', async (code) => {
      try {
        if (code !== 0) throw new Error(`${command.join(' ')} exited ${code}: ${stderr}`);
        const [user, system, rssKb] = (await readFile(report, 'utf8')).trim().split('\n').at(-1)!.split(' ').map(Number);
        resolve({ cpuSeconds: (user ?? 0) + (system ?? 0), peakRssMb: (rssKb ?? 0) / 1024 });
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** A tool recording a live stream into `output`, measured. */
export type LiveRecorder = (url: string, output: string, cwd: string) => Promise<Usage>;

/** `ffmpeg -live_start_index 0 -i URL -c copy out.mp4`: a live stream recorded from its first listed segment. */
export function recordLive(url: string, output: string, cwd: string): Promise<Usage> {
  return timed(['ffmpeg', ...QUIET, '-live_start_index', '0', '-i', url, '-c', 'copy', output], cwd);
}

/** Repeats of one measurement: their median, and their range to show how far one run strays. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  runs: number;
}

export function spread(values: number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), runs: values.length };
}

/** `measure` run `runs` times one after another: the spread of its CPU, and the highest peak RSS. */
export async function repeated(runs: number, measure: () => Promise<Usage>): Promise<{ cpu: Spread; peakRssMb: number }> {
  const usages: Usage[] = [];
  for (let i = 0; i < runs; i++) usages.push(await measure());
  return { cpu: spread(usages.map((u) => u.cpuSeconds)), peakRssMb: Math.max(...usages.map((u) => u.peakRssMb)) };
}

/** Live recordings at once: their CPU's spread, median peak RSS, and what they wrote. */
export interface LiveRuns {
  cpu: Spread;
  peakRssMb: number;
  file: string;
  files: string[];
}

/**
 * `runs` bare recordings of the live stream at once, one viewer URL each (`name-0`, `name-1`, …),
 * into `name-i.mp4` under `cwd`. One run's CPU strays (0.18–0.24 s for the same minute, measured
 * 2026-11-26), so a ratio against one run moves with it; each costs ~0.2 CPU s a minute, so
 * running them together disturbs nothing measured beside them.
 */
export async function recordLiveRuns(
  url: (viewer: string) => string,
  name: string,
  runs: number,
  cwd: string,
  record: LiveRecorder = recordLive,
  extension = 'mp4',
): Promise<LiveRuns> {
  const files = Array.from({ length: runs }, (_, i) => path.join(cwd, `${name}-${i}.${extension}`));
  const usages = await Promise.all(files.map((file, i) => record(url(`${name}-${i}`), file, cwd)));
  return { cpu: spread(usages.map((u) => u.cpuSeconds)), peakRssMb: median(usages.map((u) => u.peakRssMb)), file: files[0] as string, files };
}

/** `ffmpeg -f concat -safe 0 -i list -c copy -movflags +faststart out.mp4` of local part files. */
export async function concatFaststart(parts: string[], output: string, cwd: string): Promise<Usage> {
  const list = `${output}.list.txt`;
  await writeFile(list, parts.map((p) => `file '${p}'\n`).join(''));
  return timed(['ffmpeg', ...QUIET, '-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', '-movflags', '+faststart', output], cwd);
}

export async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
