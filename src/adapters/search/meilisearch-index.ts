// Decisions: docs/decisions/0074-cjk-words-in-search.md, docs/decisions/0091-private-search-keys-per-caller.md, docs/decisions/0115-meilisearch.md
import { generateTenantToken } from 'meilisearch/token';
import { SEARCH_INDEX, type RejectedDocument, type SearchDocument, type SearchIndex } from '../../core/search/search.js';

export interface MeilisearchSettings {
  /** Where Kura reaches Meilisearch. */
  url: string;
  /** Never leaves the server: index, settings, documents and keys are managed with it. */
  adminKey: string;
}

/**
 * What Meilisearch is told the index holds: searched, filtered and sorted attributes. The id is
 * searched first, so a query that is a record's id finds it first (Meilisearch ranks a match in an
 * earlier attribute higher), as the built-in engine does; Meilisearch segments CJK text itself.
 */
export const MEILISEARCH_INDEX_SETTINGS = {
  searchableAttributes: ['id', 'title', 'channelName', 'moments.text'],
  filterableAttributes: ['finished', 'status', 'channelId', 'platform'],
  sortableAttributes: ['scheduledStart', 'length', 'fileSizeBytes'],
  // ISO 8601 UTC strings of one length sort as time
  displayedAttributes: ['*'],
};

/** The name of the key Kura hands out; a key of this name that only searches `kura` is reused. */
export const SEARCH_KEY_NAME = 'kura-search';

interface MeiliKey {
  uid: string;
  name: string | null;
  key: string;
  actions: string[];
  indexes: string[];
  expiresAt: string | null;
}

/** Thrown when Meilisearch answers with an error or cannot be reached (callers retry). */
export class MeilisearchError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'MeilisearchError';
  }
}

/** What Meilisearch's clients are handed: its search-only key, or a tenant token signed with it. */
export interface MeilisearchKeys {
  searchKey(): Promise<string>;
  /** A tenant token of the search key that searches `kura` only, refused by Meilisearch from `expiresAt` on. */
  tenantToken(expiresAt: Date): Promise<string>;
}

/** A Meilisearch task as `GET /tasks/{uid}` describes it (the fields Kura reads). */
interface MeiliTask {
  uid: number;
  status: 'enqueued' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  error: { message: string; code: string; type: string } | null;
}

/** How long a task may stay enqueued or processing before the drain gives up on this attempt (its changes stay queued). */
const TASK_WAIT_MS = 60_000;
/** Attempts at a task that failed for Meilisearch's own reasons (a full disk, an internal error), a second apart and doubling. */
const TASK_ATTEMPTS = 3;

/**
 * An external Meilisearch kept in sync (documents replaced by id), and its search-only key. Each
 * change is a task Meilisearch runs later: Kura waits for its outcome, retries one that failed
 * for Meilisearch's reasons, and answers documents it refused for theirs (`invalid_request`: an
 * id or a field it will not take) one by one, found by halving the batch, so the rest are indexed.
 */
export function createMeilisearchIndex(settings: MeilisearchSettings, timing = { retryMs: 1000 }): SearchIndex & MeilisearchKeys {
  const base = settings.url.replace(/\/+$/, '');
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${settings.adminKey}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw new MeilisearchError(`Meilisearch unreachable at ${base}: ${(error as Error).message}`);
    }
    const text = await response.text();
    if (!response.ok) {
      const message = safeJson<{ message?: string; code?: string }>(text);
      throw new MeilisearchError(
        `Meilisearch ${method} ${path} answered ${response.status}: ${message?.code ?? ''} ${message?.message ?? text}`.trim(),
        response.status,
      );
    }
    return (text === '' ? undefined : safeJson(text)) as T;
  };
  const documents = `/indexes/${SEARCH_INDEX}/documents`;
  /** Sends a change and waits for its task to end: null when it succeeded, else the task's error. */
  const run = async (method: string, path: string, body: unknown): Promise<MeiliTask['error']> => {
    for (let attempt = 1; ; attempt++) {
      const { taskUid } = await call<{ taskUid: number }>(method, path, body);
      const task = await settled(call, taskUid);
      if (task.status === 'succeeded') return null;
      const error = task.error ?? { message: `the task was ${task.status}`, code: task.status, type: 'internal' };
      // a document Meilisearch refuses is refused again; its own trouble may pass
      if (error.type === 'invalid_request' || attempt === TASK_ATTEMPTS) return error;
      await new Promise((resolve) => setTimeout(resolve, timing.retryMs * 2 ** (attempt - 1)));
    }
  };
  /** Adds `batch`; answers the documents refused, halving a refused batch down to them. Throws when Meilisearch fails for its own reasons. */
  const add = async (batch: readonly SearchDocument[]): Promise<RejectedDocument[]> => {
    const error = await run('POST', `${documents}?primaryKey=id`, batch);
    if (error === null) return [];
    if (error.type !== 'invalid_request')
      throw new MeilisearchError(`Meilisearch failed to index documents ${TASK_ATTEMPTS} times: ${error.code} ${error.message}`);
    if (batch.length === 1) return [{ id: (batch[0] as SearchDocument).id, reason: `${error.code}: ${error.message}` }];
    const half = Math.ceil(batch.length / 2);
    return [...(await add(batch.slice(0, half))), ...(await add(batch.slice(half)))];
  };
  let key: Promise<MeiliKey> | null = null;
  const searchKey = () =>
    (key ??= findOrCreateSearchKey(call).catch((error: unknown) => {
      key = null;
      throw error;
    }));
  return {
    async prepare() {
      // both are queued tasks applied in order; creating an existing index fails in its task, harmlessly
      await call('POST', '/indexes', { uid: SEARCH_INDEX, primaryKey: 'id' });
      await call('PATCH', `/indexes/${SEARCH_INDEX}/settings`, MEILISEARCH_INDEX_SETTINGS);
    },
    async upsert(records) {
      return records.length > 0 ? add(records) : [];
    },
    async remove(ids) {
      if (ids.length === 0) return;
      const error = await run('POST', `${documents}/delete-batch`, ids);
      if (error !== null) throw new MeilisearchError(`Meilisearch failed to remove documents: ${error.code} ${error.message}`);
    },
    async clear() {
      await call('DELETE', documents);
    },
    async searchKey() {
      return (await searchKey()).key;
    },
    async tenantToken(expiresAt) {
      const { key: apiKey, uid: apiKeyUid } = await searchKey();
      return generateTenantToken({ apiKey, apiKeyUid, searchRules: [SEARCH_INDEX], expiresAt });
    },
  };
}

async function findOrCreateSearchKey(call: <T>(method: string, path: string, body?: unknown) => Promise<T>): Promise<MeiliKey> {
  const { results } = await call<{ results: MeiliKey[] }>('GET', '/keys?limit=1000');
  const reusable = results.find((k) => k.name === SEARCH_KEY_NAME && k.expiresAt === null && same(k.actions, ['search']) && same(k.indexes, [SEARCH_INDEX]));
  if (reusable) return reusable;
  const created = await call<MeiliKey>('POST', '/keys', {
    name: SEARCH_KEY_NAME,
    description: 'Handed to clients by Kura (GET /api/search): search on the kura index only',
    actions: ['search'],
    indexes: [SEARCH_INDEX],
    expiresAt: null,
  });
  return created;
}

/** The task once it ended (succeeded, failed or canceled), asked again at growing intervals; throws past TASK_WAIT_MS. */
async function settled(call: <T>(method: string, path: string) => Promise<T>, uid: number): Promise<MeiliTask> {
  const deadline = Date.now() + TASK_WAIT_MS;
  for (let wait = 10; ; wait = Math.min(wait * 2, 1000)) {
    const task = await call<MeiliTask>('GET', `/tasks/${uid}`);
    if (task.status !== 'enqueued' && task.status !== 'processing') return task;
    if (Date.now() + wait > deadline) throw new MeilisearchError(`Meilisearch task ${uid} was still ${task.status} after ${TASK_WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function safeJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
