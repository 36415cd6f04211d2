// Decisions: docs/decisions/0068-lint-and-format.md
import { ESLint } from 'eslint';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Lints a snippet as if it lived at `filePath`, with the repository's own eslint.config.js: the
// same rules `npm run lint` and `npm test` apply to the tree.
const eslint = new ESLint({ cwd: process.cwd() });

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('the import boundaries of docs/ARCHITECTURE.md', () => {
  it.each([
    [
      'core importing an adapter',
      'src/core/capture/start-capture.ts',
      "import { createPool } from '../../adapters/db/pool.js';\n",
      'kura/layers: core must not import adapters',
    ],
    ['core importing http', 'src/core/get-stats.ts', "import { problem } from '../http/problem.js';\n", 'kura/layers: core must not import http'],
    ['core importing the config', 'src/core/get-stats.ts', "import type { Config } from '../config/config.js';\n", 'kura/layers: core must not import config'],
    ['core importing node:fs', 'src/core/get-stats.ts', "import { readFileSync } from 'node:fs';\n", "no-restricted-imports: 'node:fs' import is restricted"],
    [
      'core importing node:child_process',
      'src/core/get-stats.ts',
      "import { spawn } from 'node:child_process';\n",
      "no-restricted-imports: 'node:child_process' import is restricted",
    ],
    [
      'http importing an adapter',
      'src/http/history/history.routes.ts',
      "import { createPool } from '../../adapters/db/pool.js';\n",
      'kura/layers: http must not import adapters',
    ],
    ['http importing jobs, even a type', 'src/http/app.ts', "import type { JobName } from '../jobs/catalogue.js';\n", 'kura/layers: http must not import jobs'],
    [
      'an adapter importing http',
      'src/adapters/db/pool.ts',
      "import { problem } from '../../http/problem.js';\n",
      'kura/layers: adapters must not import http',
    ],
    [
      'an adapter importing jobs',
      'src/adapters/db/pool.ts',
      "export { JOB_SCHEDULES } from '../../jobs/catalogue.js';\n",
      'kura/layers: adapters must not import jobs',
    ],
    [
      'jobs importing an adapter',
      'src/jobs/watchdog.ts',
      "const pool = await import('../adapters/db/pool.js');\nexport { pool };\n",
      'kura/layers: jobs must not import adapters',
    ],
    [
      'an adapter importing config values',
      'src/adapters/db/pool.ts',
      "import { loadConfig } from '../../config/config.js';\nexport { loadConfig };\n",
      'kura/layers: adapters may import config only with `import type`',
    ],
    [
      'the web UI importing server code',
      'web/src/lib/api.ts',
      "import { buildRecord } from '../../../src/core/record-document.js';\nexport { buildRecord };\n",
      'kura/layers: web may import core only with `import type`',
    ],
    [
      'a web page importing server code',
      'web/src/pages/stats-page.svelte',
      '<script lang="ts">\n  import { statsSchema } from \'../../../src/http/stats/stats.routes.js\';\n  console.log(statsSchema);\n</script>\n',
      'kura/layers: web may import http only with `import type`',
    ],
    [
      'a core domain importing one above it (livestream → capture)',
      'src/core/records/list-queue.ts',
      "import type { PartLog } from '../capture/ports.js';\nexport type { PartLog };\n",
      'kura/layers: core/records must not import core/capture',
    ],
    [
      'the kernel importing a domain',
      'src/core/errors.ts',
      "import type { Livestream } from './livestream/livestream.js';\nexport type { Livestream };\n",
      'kura/layers: core/kernel must not import core/records',
    ],
    [
      'capture importing chat (finalize reaches the chat through its ChatArchive port)',
      'src/core/capture/finalize-archive.ts',
      "import { storeChat } from '../chat/store-chat.js';\nexport { storeChat };\n",
      'kura/layers: core/capture must not import core/chat',
    ],
    [
      'an adapter folder importing one above it (os → system)',
      'src/adapters/os/disk-space.ts',
      "import { publicUrlCheck } from '../system/system-checks.js';\nexport { publicUrlCheck };\n",
      'kura/layers: adapters/os must not import adapters/system',
    ],
    [
      'a borrowed port type between adapter folders (db → storage)',
      'src/adapters/db/upload-journal.ts',
      "import type { S3StoreOptions } from '../storage/s3-store.js';\nexport type { S3StoreOptions };\n",
      'kura/layers: adapters/db must not import adapters/storage',
    ],
    [
      'a new adapter folder not placed in the folder table',
      'src/adapters/mail/smtp.ts',
      "import { createPool } from '../db/pool.js';\nexport { createPool };\n",
      'kura/layers: adapters/mail is not in the folder table',
    ],
    [
      'a command reaching an adapter around the composition root',
      'src/cli/retention-command.ts',
      "import { createAdminActionRepo } from '../adapters/db/admin-action-repo.js';\nexport { createAdminActionRepo };\n",
      'no-restricted-imports: ',
    ],
    [
      'a new core folder not placed in the domain table',
      'src/core/quotas/keep-last.ts',
      "import type { Livestream } from '../livestream/livestream.js';\nexport type { Livestream };\n",
      'kura/layers: core/quotas is not in the folder table',
    ],
  ])('refuses %s', async (_name, filePath, code, expected) => {
    const found = await problems(filePath, code);
    expect(
      found.some((p) => p.startsWith(expected)),
      found.join('\n'),
    ).toBe(true);
  });

  it.each([
    ['core importing core from a domain folder', 'src/core/capture/start-capture.ts', "import { AppError } from '../errors.js';\nexport { AppError };\n"],
    [
      'a core domain importing one below it (workflow → capture)',
      'src/core/record-actions/cancel-livestream.ts',
      "import type { PartLog } from '../capture/ports.js';\nexport type { PartLog };\n",
    ],
    [
      'an adapter importing core and a config slice as a type',
      'src/adapters/storage/s3-store.ts',
      "import type { S3Config } from '../../config/config.js';\nimport { AppError } from '../../core/errors.js';\nexport type { S3Config };\nexport { AppError };\n",
    ],
    [
      'main wiring every layer',
      'src/main.ts',
      "import { createPool } from './adapters/db/pool.js';\nimport { buildApp } from './http/app.js';\nexport { createPool, buildApp };\n",
    ],
    [
      'the web UI importing server types',
      'web/src/lib/api.ts',
      "import type { RecordDocument } from '../../../src/core/search.js';\nexport type { RecordDocument };\n",
    ],
  ])('allows %s', async (_name, filePath, code) => {
    expect(await problems(filePath, code)).toEqual([]);
  });
});

describe('the one home of background work', () => {
  it('keeps pg-boss inside src/jobs/runtime/: no other file of src imports it', () => {
    const files = execFileSync('git', ['ls-files', 'src'], { encoding: 'utf8' })
      .split('\n')
      .filter((file) => file.endsWith('.ts'));
    const importers = files.filter((file) => /from 'pg-boss'|import\('pg-boss'\)/.test(readFileSync(file, 'utf8')));
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((file) => !file.startsWith('src/jobs/runtime/'))).toEqual([]);
  });
});
