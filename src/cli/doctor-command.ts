import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config/config.js';
import type { ArchiveStore } from '../core/archive/ports.js';
import { engineAdvice } from '../core/search/engine-advice.js';
import { createStore } from '../wiring/storage.js';
import type { Command } from './command.js';
import { machineChecks, publicUrlCheck, type SystemCheck } from '../wiring/machine-checks.js';
import { shown } from './terminal-text.js';
import { withDatabase } from './with-database.js';

/** `kura doctor`: what Kura needs on this machine, ✔ or ✘ with the fix; exits 1 when something fails. */
export const doctorCommand: Command = {
  run: runDoctor,
};

async function runDoctor(config: Config): Promise<number> {
  const checks: SystemCheck[] = await machineChecks(config);
  checks.push(...(await databaseAndStoreChecks(config)), publicUrlCheck(config));
  for (const check of checks) {
    console.log(shown`${check.ok ? '✔' : '✘'} ${check.name}: ${check.detail}`);
    if (!check.ok && check.fix) console.log(shown`    fix: ${check.fix}`);
  }
  const failed = checks.filter((check) => !check.ok).length;
  console.log(failed === 0 ? 'kura: everything Kura needs is here' : `kura: ${failed} of ${checks.length} checks failed`);
  return failed === 0 ? 0 : 1;
}

/** The database (reached and migrated) and the archive store (an object written and deleted). */
async function databaseAndStoreChecks(config: Config): Promise<SystemCheck[]> {
  const where = config.databaseUrl === undefined ? 'embedded PostgreSQL' : 'DATABASE_URL';
  const results: SystemCheck[] = [];
  try {
    await withDatabase(config, async (database) => {
      const { rows } = await database.pool.query<{ version: string }>("select current_setting('server_version') as version");
      results.push({ name: 'database', ok: true, detail: `${where}: PostgreSQL ${rows[0]?.version ?? '?'}, migrated` });
      results.push(await storeCheck(config, await createStore(config, database)));
      const advice = await engineAdvice(config.search.kind, database.livestreams);
      // a recommendation, not a failure: the built-in engine still answers
      results.push({ name: `search (${config.search.kind})`, ok: true, detail: advice ?? 'fits this archive' });
      return 0;
    });
  } catch (error) {
    results.push({
      name: 'database',
      ok: false,
      detail: `${where}: ${(error as Error).message}`,
      fix: 'check DATABASE_URL, or unset it for the embedded PostgreSQL',
    });
  }
  return results;
}

async function storeCheck(config: Config, store: ArchiveStore): Promise<SystemCheck> {
  const name = config.storage.kind === 's3' ? `storage (S3 bucket ${config.storage.bucket})` : 'storage (local disk)';
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-doctor-'));
  const key = `doctor/${process.pid}-${Date.now()}.txt`;
  try {
    const file = path.join(dir, 'probe.txt');
    await writeFile(file, 'kura doctor');
    await store.put(key, file, { contentType: 'text/plain', contentDisposition: 'attachment' });
    await store.delete(key);
    return { name, ok: true, detail: 'an object written and deleted' };
  } catch (error) {
    return {
      name,
      ok: false,
      detail: (error as Error).message,
      fix: config.storage.kind === 's3' ? 'check the S3_* settings and the bucket' : 'check KURA_DATA_DIR',
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
