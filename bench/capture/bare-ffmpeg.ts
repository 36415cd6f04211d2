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

/** `ffmpeg -live_start_index 0 -i URL -c copy out.mp4`: a live stream recorded from its first listed segment. */
export function recordLive(url: string, output: string, cwd: string): Promise<Usage> {
  return timed(['ffmpeg', ...QUIET, '-live_start_index', '0', '-i', url, '-c', 'copy', output], cwd);
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
