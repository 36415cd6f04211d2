import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';

const CLI = `${readPackageInfo().root}/dist/src/cli.js`;

export interface KuraProcess {
  child: ChildProcess;
  /** Resolves with the first JSON log line `match` accepts; rejects if the process exits first. */
  waitForLog(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * Runs the built `kura` command (dist/, as `npm start` does; `cli`: another build's, for a
 * benchmark's comparison; `program`: an installed `kura` command, as an operator runs it) in `cwd`
 * with only the given environment (and node flags, e.g. --cpu-prof); `stdin`, when given, is what
 * it reads.
 */
export function spawnKura(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  options: { nodeArgs?: string[]; stdin?: string; cli?: string; program?: string } = {},
): KuraProcess {
  const [program, programArgs] =
    options.program === undefined ? [process.execPath, [...(options.nodeArgs ?? []), options.cli ?? CLI, ...args]] : [options.program, args];
  const child = spawn(program, programArgs, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  let stdout = '';
  let stderr = '';
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<{ match: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (text) => {
    stdout += `${text}\n`;
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.match(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    child,
    exited,
    waitForLog(match) {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        void exited.then((result) => reject(new Error(`kura exited (${result.code ?? result.signal}) first:\n${result.stdout}\n${result.stderr}`)));
      });
    },
  };
}

/** Runs a `kura` command to completion, with `stdin` as its input if given. */
export function runKura(args: string[], env: Record<string, string>, cwd: string, stdin?: string) {
  return spawnKura(args, env, cwd, { stdin }).exited;
}
