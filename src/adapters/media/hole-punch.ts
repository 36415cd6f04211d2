import { spawn } from 'node:child_process';

/**
 * Frees the disk blocks of bytes `offset` to `offset + length` of a file that is still being
 * written, without changing its size or where anything else lies (`fallocate --punch-hole`, from
 * util-linux, on ext4, xfs, btrfs and tmpfs). Resolves false where the filesystem cannot.
 */
export function punchHole(file: string, offset: number, length: number): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('fallocate', ['--punch-hole', '--offset', String(offset), '--length', String(length), file], { stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}
