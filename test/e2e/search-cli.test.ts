import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runKura } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { buildRecords } from '../support/factories.js';

let cwd: string;
let db: TestDatabase;
beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-search-cli-'));
  db = await createTestDatabase({ migrated: false });
});
afterEach(() => db.drop());

const env = (extra: Record<string, string> = {}) => ({ DATABASE_URL: db.url, LOG_LEVEL: 'warn', ...extra });

describe('kura search reindex', () => {
  it('rebuilds the built-in index from the records, from an emptied index', async () => {
    const file = path.join(cwd, 'history.json');
    await writeFile(file, JSON.stringify(buildRecords(200, { unfinishedEvery: 9 })));
    expect((await runKura(['import', file], env(), cwd)).code).toBe(0);
    await db.pool.query('truncate search_documents');

    const result = await runKura(['search', 'reindex'], env(), cwd);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/search index \(builtin\) rebuilt from 200 records/);
    const { rows } = await db.pool.query(`select count(*)::int as n, count(*) filter (where title like 'Karaoke night %')::int as karaoke,
      (select count(*)::int from search_outbox) as pending from search_documents`);
    expect(rows[0]).toEqual({ n: 200, karaoke: 200, pending: 0 });
  });

  it('exits 2 when search is off or the subcommand is unknown', async () => {
    const off = await runKura(['search', 'reindex'], env({ KURA_SEARCH: 'off' }), cwd);
    expect(off.code).toBe(2);
    expect(off.stderr).toContain('search is off');
    const unknown = await runKura(['search', 'rebuild'], env(), cwd);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('usage: kura search reindex');
    const bad = await runKura(['search', 'reindex'], env({ KURA_SEARCH: 'meilisearch' }), cwd);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('MEILISEARCH_URL is required');
    expect(bad.stderr).toContain('MEILISEARCH_ADMIN_KEY is required');
  });
});
