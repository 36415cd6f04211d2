// Decisions: docs/decisions/0051-meilisearch.md, docs/decisions/0074-cjk-words-in-search.md, docs/decisions/0091-private-search-keys-per-caller.md
import { generateTenantToken } from 'meilisearch/token';
import { SEARCH_INDEX, type SearchIndex } from '../../core/search/search.js';

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
  searchableAttributes: ['id', 'title', 'channelName'],
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

/** An external Meilisearch kept in sync (documents replaced by id), and its search-only key. */
export function createMeilisearchIndex(settings: MeilisearchSettings): SearchIndex & MeilisearchKeys {
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
      if (records.length > 0) await call('POST', `${documents}?primaryKey=id`, records);
    },
    async remove(ids) {
      if (ids.length > 0) await call('POST', `${documents}/delete-batch`, ids);
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
