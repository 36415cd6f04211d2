// Decisions: docs/decisions/0047-search-outbox.md
import type { Livestream } from '../records/livestream.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { SearchDocument, SearchIndex, SearchOutbox } from './search.js';

export interface SearchSyncDeps {
  outbox: SearchOutbox;
  livestreams: Pick<LivestreamRepo, 'findManyById'>;
  index: SearchIndex;
  /** The record as the index holds it (the API's record shape, built outside core). */
  document: (livestream: Livestream) => SearchDocument;
}

/** Changes taken from the outbox at once. */
const BATCH = 1000;

/**
 * Brings the search index up to date with the records: every change queued in the outbox is
 * applied (the record as it is now, or its removal when it is gone), oldest first, until none is
 * left. Resolves with the ids applied. Rejects with the engine's error; the changes stay queued.
 */
export async function syncSearchIndex(deps: SearchSyncDeps): Promise<string[]> {
  const applied: string[] = [];
  for (;;) {
    const taken = await deps.outbox.drain(BATCH, async (ids) => {
      const records = await deps.livestreams.findManyById(ids);
      const present = new Set(records.map((r) => r.id));
      await deps.index.upsert(records.map(deps.document));
      await deps.index.remove(ids.filter((id) => !present.has(id)));
      applied.push(...ids);
    });
    if (taken === 0) return applied;
  }
}

/** Rebuilds the index from scratch: empties it, queues every record and applies them. Resolves with the count. */
export async function reindexSearch(deps: SearchSyncDeps): Promise<number> {
  await deps.index.prepare();
  const queued = await deps.outbox.queueAll(() => deps.index.clear());
  await syncSearchIndex(deps);
  return queued;
}
