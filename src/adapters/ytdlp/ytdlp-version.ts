// Decisions: docs/decisions/0089-how-kura-runs-yt-dlp.md
/**
 * The oldest yt-dlp Kura runs: 2026.07.04, the first release whose YouTube live-from-start lists
 * the adaptive formats Kura records (`_live_adaptive_fragments` behind `http_dash_segments_generator`,
 * each format `is_from_start` with its `target_duration`: yt-dlp commit 8c1f07d, "[ie/youtube]
 * Support live adaptive formats", #16771, in Changelog.md under 2026.07.04). 2026.06.09 still
 * lists them through the old DASH manifest path, without `target_duration`.
 */
export const YTDLP_FLOOR = '2026.07.04';

/**
 * The oldest Python a current yt-dlp installs on: `requires-python = ">=3.10"` in yt-dlp's
 * pyproject.toml since 2025.10.22 ("Remove Python 3.9 support", #13861). On an older one pip
 * quietly installs the last yt-dlp that supported it, far below YTDLP_FLOOR.
 */
export const PYTHON_FLOOR = '3.10';

/** Compares dotted numeric versions part by part (2026.07.04 < 2026.07.04.233012 < 2026.8.1); a missing part counts 0. */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

/** The version in a program's first line (`2026.08.19`, `Python 3.12.3`), null when there is none. */
export function versionIn(line: string): string | null {
  return /\d+(?:\.\d+)+/.exec(line)?.[0] ?? null;
}

/** Whether this `yt-dlp --version` line names a release older than YTDLP_FLOOR; false when it names none. */
export function isYtDlpTooOld(line: string): boolean {
  const version = versionIn(line);
  return version !== null && compareVersions(version, YTDLP_FLOOR) < 0;
}

/** Whether this `python --version` line names a Python older than PYTHON_FLOOR; false when it names none. */
export function isPythonTooOld(line: string): boolean {
  const version = versionIn(line);
  return version !== null && compareVersions(version, PYTHON_FLOOR) < 0;
}
