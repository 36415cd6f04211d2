// Decisions: docs/decisions/0118-releases-and-upgrades.md
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Files shipped beside the code, found from the package root (works from src/ and dist/). */
export interface PackageInfo {
  root: string;
  name: string;
  version: string;
  /** Git commit the build was made from, or "unknown". */
  commit: string;
  migrationsDir: string;
  changelogPath: string;
}

/** Reads the package's own metadata once at start. */
export function readPackageInfo(): PackageInfo {
  const root = findRoot(path.dirname(fileURLToPath(import.meta.url)));
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  const buildInfoPath = path.join(root, 'dist', 'build-info.json');
  const commit = existsSync(buildInfoPath) ? (JSON.parse(readFileSync(buildInfoPath, 'utf8')) as { commit: string }).commit : 'unknown';
  return {
    root,
    name: pkg.name,
    version: pkg.version,
    commit,
    migrationsDir: path.join(root, 'migrations'),
    changelogPath: path.join(root, 'CHANGELOG.md'),
  };
}

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'migrations'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`Kura's package root was not found above ${start}`);
  }
}
