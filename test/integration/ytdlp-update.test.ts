import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createYtDlpUpdater } from '../../src/adapters/ytdlp/ytdlp-updater.js';
import { ytdlpProgram } from '../../src/adapters/ytdlp/ytdlp-program.js';
import { startYtDlpUpdateLoop } from '../../src/jobs/loops/ytdlp-update.js';
import { YTDLP_STAND_IN } from '../support/app.js';

/**
 * A virtual environment as the installer makes it, with STAND-INS for its python (pip) and
 * yt-dlp, since no package index can be reached here: yt-dlp prints the version in `version`;
 * `python -m pip install --upgrade yt-dlp[default,deno]` writes `next-version` there, or fails as
 * pip does when `pip-fails` exists; with `--pre` (the nightly channel) it writes `next-nightly`.
 */
async function environment(version: string): Promise<{ dir: string; program: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-ytdlp-env-'));
  await mkdir(path.join(dir, 'bin'));
  await writeFile(path.join(dir, 'version'), `${version}\n`);
  const script = (name: string, body: string) => writeFile(path.join(dir, 'bin', name), `#!/bin/sh\nenv_dir="$(dirname "$0")/.."\n${body}\n`, { mode: 0o755 });
  await script('yt-dlp', 'cat "$env_dir/version"');
  await script(
    'python',
    `case "$*" in
  "-m pip install --quiet --disable-pip-version-check --upgrade yt-dlp[default,deno]") ;;
  "-m pip install --quiet --disable-pip-version-check --upgrade --pre yt-dlp[default,deno]") cp "$env_dir/next-nightly" "$env_dir/version"; exit 0 ;;
  *) echo "unexpected: $*" >&2; exit 2 ;;
esac
if [ -e "$env_dir/pip-fails" ]; then echo "ERROR: Could not find a version that satisfies the requirement yt-dlp" >&2; exit 1; fi
cp "$env_dir/next-version" "$env_dir/version"`,
  );
  return { dir, program: path.join(dir, 'bin', 'yt-dlp') };
}

describe('updating the yt-dlp Kura installed', () => {
  it('runs pip in its environment, says what changed, and is not due again for a day', async () => {
    const { dir, program } = await environment('2026.08.19');
    await writeFile(path.join(dir, 'next-version'), '2026.11.20\n');
    const updater = createYtDlpUpdater(ytdlpProgram(program));
    expect(await updater?.due(86_400)).toBe(true);
    expect(await updater?.update()).toEqual({ updated: true, before: '2026.08.19', after: '2026.11.20' });
    expect(await updater?.due(86_400)).toBe(false);
    expect(await updater?.update()).toEqual({ updated: false, before: '2026.11.20', after: '2026.11.20' });
  });

  it('on the nightly channel, asks pip for pre-releases (where yt-dlp publishes its nightlies)', async () => {
    const { dir, program } = await environment('2026.08.19');
    await writeFile(path.join(dir, 'next-version'), '2026.11.20\n');
    await writeFile(path.join(dir, 'next-nightly'), '2026.11.27.233012\n');
    const outcome = await createYtDlpUpdater(ytdlpProgram(program, { channel: 'nightly' }))?.update();
    expect(outcome).toEqual({ updated: true, before: '2026.08.19', after: '2026.11.27.233012' });
  });

  it('keeps the version there was when pip fails, and says why', async () => {
    const { dir, program } = await environment('2026.08.19');
    await writeFile(path.join(dir, 'pip-fails'), '');
    const outcome = await createYtDlpUpdater(ytdlpProgram(program))?.update();
    expect(outcome).toEqual({ failed: expect.stringContaining('Could not find a version'), before: '2026.08.19' });
    expect(await readFile(path.join(dir, 'version'), 'utf8')).toBe('2026.08.19\n');
  });

  it('leaves a yt-dlp of the operator’s own alone (no environment of Kura’s beside it)', () => {
    expect(createYtDlpUpdater(ytdlpProgram(YTDLP_STAND_IN))).toBeNull();
    expect(createYtDlpUpdater(ytdlpProgram(null))).toBeNull();
  });

  it('the worker’s loop updates at start when due and logs the version change', async () => {
    const { dir, program } = await environment('2026.08.19');
    await writeFile(path.join(dir, 'next-version'), '2026.11.20\n');
    const lines: string[] = [];
    const log = { info: (_: object, message: string) => lines.push(message), warn: (_: object, message: string) => lines.push(message) };
    const stop = startYtDlpUpdateLoop({ ytdlpUpdates: createYtDlpUpdater(ytdlpProgram(program)), log }, { everySeconds: 86_400 });
    await stop(); // waits for the look in flight
    expect(lines).toEqual(['yt-dlp updated: 2026.08.19 → 2026.11.20']);
  });
});
