// Records the commit a build was made from, for GET /api.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
} catch {
  // not a git checkout (a packed release): keep "unknown"
}
mkdirSync('dist', { recursive: true });
writeFileSync('dist/build-info.json', `${JSON.stringify({ commit, builtAt: new Date().toISOString() })}\n`);
