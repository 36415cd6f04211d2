import { existsSync } from 'node:fs';
import path from 'node:path';
import { programVersion, type ProgramVersion } from '../os/program-version.js';
import type { YtDlpProgram } from '../ytdlp/ytdlp-program.js';
import { isPythonTooOld, isYtDlpTooOld, PYTHON_FLOOR, YTDLP_FLOOR } from '../ytdlp/ytdlp-version.js';
import type { SystemCheck } from './system-checks.js';

/** yt-dlp older than this is likely to fail on YouTube (yt-dlp warns at the same age). */
export const YTDLP_MAX_AGE_DAYS = 90;
const INSTALL = 'run scripts/install-system-deps.sh as root';

/** The python of the virtual environment Kura's installer made for yt-dlp, null for a yt-dlp of the operator's own. */
function pythonBeside(ytdlp: YtDlpProgram): string | null {
  const python = path.join(path.dirname(ytdlp.path), 'python');
  return path.isAbsolute(ytdlp.path) && existsSync(python) ? python : null;
}

/** How the yt-dlp at hand is updated: pip in Kura's own virtual environment (`--pre` for nightlies), else yt-dlp's own -U. */
export function updateCommand(ytdlp: YtDlpProgram): string {
  const python = pythonBeside(ytdlp);
  const pre = ytdlp.channel === 'nightly' ? ' --pre' : '';
  if (python !== null) return `${python} -m pip install -U${pre} "yt-dlp[default,deno]"`;
  return ytdlp.channel === 'nightly' ? `${ytdlp.path} --update-to nightly` : `${ytdlp.path} -U`;
}

/**
 * yt-dlp as found: missing, older than YTDLP_FLOOR (it cannot record YouTube live streams from
 * their start), older than YTDLP_MAX_AGE_DAYS, or fine; the channel Kura keeps it on is said.
 */
export function ytdlpCheck(ytdlp: YtDlpProgram, found: ProgramVersion, now: Date): SystemCheck {
  if (!found.found)
    return { name: 'yt-dlp', ok: false, detail: `${ytdlp.path}: ${found.reason} (YouTube URLs are refused; HLS works)`, fix: `${INSTALL}, or set YTDLP_PATH` };
  const released = /^(\d{4})\.(\d{2})\.(\d{2})/.exec(found.line);
  const days = released ? Math.floor((now.getTime() - Date.UTC(Number(released[1]), Number(released[2]) - 1, Number(released[3]))) / 86_400_000) : null;
  const detail = `${found.line} (${ytdlp.path})${days === null ? '' : `, ${days} days old`}, ${ytdlp.channel} channel`;
  if (isYtDlpTooOld(found.line)) {
    return {
      name: 'yt-dlp',
      ok: false,
      detail: `${detail}: older than ${YTDLP_FLOOR}, the first yt-dlp that lists YouTube live streams' formats from their start`,
      fix: `update it: ${updateCommand(ytdlp)}`,
    };
  }
  if (days !== null && days > YTDLP_MAX_AGE_DAYS) return { name: 'yt-dlp', ok: false, detail, fix: `update it: ${updateCommand(ytdlp)}` };
  return { name: 'yt-dlp', ok: true, detail };
}

/** The Python of Kura's yt-dlp environment: PYTHON_FLOOR or later, or pip keeps yt-dlp at the last release that ran on it. Null for a yt-dlp of the operator's own. */
export async function pythonCheck(ytdlp: YtDlpProgram): Promise<SystemCheck | null> {
  const python = pythonBeside(ytdlp);
  if (python === null) return null;
  const found = await programVersion(python, ['--version']);
  if (!found.found) return { name: 'Python (for yt-dlp)', ok: false, detail: `${python}: ${found.reason}`, fix: INSTALL };
  if (!isPythonTooOld(found.line)) return { name: 'Python (for yt-dlp)', ok: true, detail: `${found.line} (${python})` };
  return {
    name: 'Python (for yt-dlp)',
    ok: false,
    detail: `${found.line} (${python}) is older than ${PYTHON_FLOOR}: current yt-dlp needs ${PYTHON_FLOOR} or later, so pip keeps an old one`,
    fix: `install Python ${PYTHON_FLOOR} or later (on Debian 12 or later, python3 is), remove ${path.dirname(path.dirname(python))} and ${INSTALL}`,
  };
}
