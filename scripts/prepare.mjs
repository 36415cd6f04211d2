// `npm ci`'s prepare: builds Kura, unless dist/ was built from this very commit with nothing changed
// since. `npx kura` in a clone installs the clone itself into npm's npx cache the first time
// (npm runs a project's own bin that way), and that install runs prepare again: without this
// check the first `npx kura` built all of Kura a second time before answering (decision 0100).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const STAMP = 'dist/.prepared-from';

/** The commit checked out when nothing tracked or untracked differs from it; null otherwise (or not a git checkout). */
function cleanCommit() {
  try {
    const git = (...args) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return git('status', '--porcelain') === '' ? git('rev-parse', 'HEAD') : null;
  } catch {
    return null;
  }
}

const commit = cleanCommit();
if (
  commit !== null &&
  existsSync(STAMP) &&
  readFileSync(STAMP, 'utf8').trim() === commit &&
  existsSync('dist/src/cli.js') &&
  existsSync('dist/bundle/brief.js')
) {
  console.log(`kura: dist/ is built from ${commit.slice(0, 12)} already`);
} else {
  execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
  if (commit !== null) writeFileSync(STAMP, `${commit}\n`);
}
