import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

// one shell per file runs `fallocate` for each request: a process started by Node costs a fork of
// all of Node's memory (milliseconds per run in a worker), one started by a small shell does not
const LOOP = 'while read -r offset length; do if fallocate --punch-hole --offset "$offset" --length "$length" "$1"; then echo 1; else echo 0; fi; done';

/**
 * Frees the disk blocks of byte ranges of a file that is still being written, without changing
 * its size or where anything else lies (`fallocate --punch-hole`, from util-linux, on ext4, xfs,
 * btrfs and tmpfs). `punch` resolves false where the filesystem (or the system) cannot.
 */
export class HolePuncher {
  private readonly shell;
  private readonly answers: Array<(done: boolean) => void> = [];
  private ended = false;

  constructor(file: string) {
    this.shell = spawn('sh', ['-c', LOOP, 'sh', file], { stdio: ['pipe', 'pipe', 'ignore'] });
    createInterface({ input: this.shell.stdout }).on('line', (line) => this.answers.shift()?.(line === '1'));
    const end = () => {
      this.ended = true;
      for (const answer of this.answers.splice(0)) answer(false);
    };
    this.shell.on('error', end).on('close', end);
    this.shell.stdin.on('error', end);
  }

  punch(offset: number, length: number): Promise<boolean> {
    if (this.ended) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.answers.push(resolve);
      this.shell.stdin.write(`${offset} ${length}\n`);
    });
  }

  /** Ends the shell once the requests written are done. */
  close(): void {
    this.shell.stdin.end();
  }
}
