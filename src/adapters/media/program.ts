import { spawn } from 'node:child_process';
import path from 'node:path';

/** A program that ran and exited with a non-zero code (not one that could not be started). */
export class ExitError extends Error {}

export interface Run {
  done: Promise<{ stdout: string; stderr: string[] }>;
  kill(): void;
}

/** Starts a program in its own process group; `done` resolves with its output, rejects on a non-zero exit. */
export function start(program: string, args: readonly string[], options: { cwd?: string } = {}): Run {
  const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...options });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ stdout: string; stderr: string[] }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = stderr.split('\n').filter((l) => l.trim() !== '');
      if (code === 0) resolve({ stdout, stderr: lines });
      else reject(new ExitError(`${path.basename(program)} exited with ${code}: ${lines.slice(-5).join(' | ')}`));
    });
  });
  return {
    done,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    },
  };
}
