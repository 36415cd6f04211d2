import { spawn } from 'node:child_process';

/** What running a program for its version told: its first line, or why it could not be run. */
export type ProgramVersion = { found: true; line: string } | { found: false; reason: string };

/** Runs `program args` (e.g. `ffmpeg -version`) within `timeoutMs` and answers its first line of output. */
export function programVersion(program: string, args: readonly string[], timeoutMs = 15_000): Promise<ProgramVersion> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(0, 4096)));
    child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(0, 4096)));
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ found: false, reason: error.code === 'ENOENT' ? 'not found' : error.message }));
    child.on('close', (code, signal) => {
      const line = output.trim().split('\n')[0] ?? '';
      if (code === 0) resolve({ found: true, line });
      else resolve({ found: false, reason: signal ? `stopped (${signal})` : `exited with ${code}${line ? `: ${line}` : ''}` });
    });
  });
}
