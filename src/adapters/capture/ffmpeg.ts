import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { MediaTools } from '../../core/ports.js';

export interface FfmpegPaths {
  ffmpeg: string;
  ffprobe: string;
}

/** Runs a program to completion in its own process group; resolves with stdout and stderr lines. */
function run(program: string, args: readonly string[]): Promise<{ stdout: string; stderr: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = stderr.split('\n').filter((l) => l.trim() !== '');
      if (code === 0) resolve({ stdout, stderr: lines });
      else reject(new Error(`${path.basename(program)} exited with ${code}: ${lines.slice(-5).join(' | ')}`));
    });
  });
}

/** Pure argument builders: remux only (`-c copy`), never re-encode. */
export const ffmpegArgs = {
  remux: (listFile: string, output: string) => [
    '-hide_banner', '-nostdin', '-y', '-f', 'concat', '-safe', '0', '-i', listFile,
    '-map', '0', '-c', 'copy', '-movflags', '+faststart', '-f', 'mp4', output,
  ],
  // one decoder thread: a single frame gains nothing from frame threads, and starting them costs
  // a third of the run's CPU (same JPEG either way)
  thumbnail: (video: string, output: string, atSeconds: number) => [
    '-hide_banner', '-nostdin', '-y', '-threads', '1', '-ss', atSeconds.toFixed(3), '-i', video, '-frames:v', '1', '-q:v', '3', '-f', 'image2', output,
  ],
  probe: (file: string) => ['-v', 'error', '-show_entries', 'format=duration', '-of', 'json', file],
};

/** ffmpeg and ffprobe from the system (FFMPEG_PATH, FFPROBE_PATH). */
export function createFfmpegTools(paths: FfmpegPaths): MediaTools {
  return {
    async remux(inputs, output) {
      const listFile = `${output}.concat.txt`;
      await writeFile(listFile, inputs.map((i) => `file '${i.replace(/'/g, "'\\''")}'\n`).join(''));
      const { stderr } = await run(paths.ffmpeg, ffmpegArgs.remux(listFile, output));
      return stderr;
    },
    async probe(file) {
      const { stdout } = await run(paths.ffprobe, ffmpegArgs.probe(file));
      const report = JSON.parse(stdout) as { format?: { duration?: string } };
      return { durationSeconds: Number(report.format?.duration ?? 0) };
    },
    async thumbnail(video, output, atSeconds) {
      await run(paths.ffmpeg, ffmpegArgs.thumbnail(video, output, atSeconds));
    },
  };
}
