import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareVersions, isPythonTooOld, isYtDlpTooOld, PYTHON_FLOOR, YTDLP_FLOOR } from '../../src/adapters/ytdlp/ytdlp-version.js';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';

describe('yt-dlp and Python versions', () => {
  it('compare part by part as numbers, a nightly after its day, a missing part as 0', () => {
    expect(compareVersions('2026.07.04', '2026.07.04')).toBe(0);
    expect(compareVersions('2026.06.09', '2026.07.04')).toBe(-1);
    expect(compareVersions('2026.07.04.233012', '2026.07.04')).toBe(1);
    expect(compareVersions('2026.10.1', '2026.9.30')).toBe(1);
    expect(compareVersions('3.9.18', '3.10')).toBe(-1);
    expect(compareVersions('3.10', '3.10.0')).toBe(0);
  });

  it('refuse a yt-dlp before the first with live adaptive formats (2026.07.04), and a Python before 3.10', () => {
    expect(isYtDlpTooOld('2026.06.09')).toBe(true);
    expect(isYtDlpTooOld('2025.11.12')).toBe(true);
    expect(isYtDlpTooOld('2026.07.04')).toBe(false);
    expect(isYtDlpTooOld('2026.08.19.232810')).toBe(false);
    expect(isYtDlpTooOld('not a version')).toBe(false);
    expect(isPythonTooOld('Python 3.9.2')).toBe(true);
    expect(isPythonTooOld('Python 3.10.12')).toBe(false);
    expect(isPythonTooOld('Python 3.13.1')).toBe(false);
  });

  it('are the floors the installer checks too', () => {
    const script = readFileSync(path.join(readPackageInfo().root, 'scripts', 'install-system-deps.sh'), 'utf8');
    expect(script).toContain(`\nYTDLP_FLOOR=${YTDLP_FLOOR}\n`);
    expect(script).toContain(`\nPYTHON_FLOOR=${PYTHON_FLOOR}\n`);
  });
});
