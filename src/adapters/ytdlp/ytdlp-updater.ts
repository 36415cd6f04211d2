import { existsSync } from 'node:fs';
import { open, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { programVersion } from '../os/program-version.js';
import type { YtDlpProgram } from './ytdlp-program.js';

/** How an update of yt-dlp went: the versions before and after, or why it failed (the old one stays). */
type YtDlpUpdate = { updated: boolean; before: string | null; after: string | null } | { failed: string; before: string | null };

/** How long an update of yt-dlp may take (pip fetching and installing it). */
const UPDATE_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Updates the yt-dlp Kura installed (a virtual environment with its own python beside the
 * program) with pip: `python -m pip install -U "yt-dlp[default,deno]"` (a pip-installed yt-dlp
 * cannot `-U` itself), with `--pre` on the nightly channel (yt-dlp's nightlies are PyPI pre-releases). Null for a yt-dlp of the operator's own (YTDLP_PATH elsewhere): its updates
 * are the operator's. `due` says whether the last update is older than `everySeconds` (a marker
 * file in the environment keeps its time across restarts); workers sharing the environment take
 * turns (a lock file), so pip never runs twice at once on it.
 */
export function createYtDlpUpdater(program: YtDlpProgram): { due(everySeconds: number): Promise<boolean>; update(): Promise<YtDlpUpdate> } | null {
  const bin = path.dirname(program.path);
  const python = path.join(bin, 'python');
  if (!path.isAbsolute(program.path) || !existsSync(python)) return null;
  const marker = path.join(bin, '..', '.kura-updated');
  const lock = path.join(bin, '..', '.kura-updating');
  const version = async () => {
    const found = await programVersion(program.path, ['--version']);
    return found.found ? found.line : null;
  };
  return {
    async due(everySeconds) {
      const last = await stat(marker).catch(() => null);
      return last === null || Date.now() - last.mtimeMs >= everySeconds * 1000;
    },
    async update() {
      const before = await version();
      const held = await open(lock, 'wx').catch(() => null);
      if (held === null) return { failed: 'another worker is updating it', before };
      try {
        const pip = await programVersion(
          python,
          [
            '-m',
            'pip',
            'install',
            '--quiet',
            '--disable-pip-version-check',
            '--upgrade',
            ...(program.channel === 'nightly' ? ['--pre'] : []),
            'yt-dlp[default,deno]',
          ],
          UPDATE_TIMEOUT_MS,
        );
        if (!pip.found) return { failed: pip.reason, before };
        const now = new Date();
        await writeFile(marker, now.toISOString());
        await utimes(marker, now, now);
        const after = await version();
        return { updated: after !== before, before, after };
      } finally {
        await held.close();
        await rm(lock, { force: true });
      }
    },
  };
}
