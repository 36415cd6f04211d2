import type { LivestreamRepo } from './ports.js';
import { toRecordDocument } from './record-document.js';
import type { SearchIndex, SearchOutbox } from './search.js';

export interface SearchSyncDeps {
  outbox: SearchOutbox;
  livestreams: Pick<LivestreamRepo, 'findManyById'>;
  index: SearchIndex;
}

/** Changes taken from the outbox at once. */
const BATCH = 1000;

/**
 * Brings the search index up to date with the records: every change queued in the outbox is
 * applied (the record as it is now, or its removal when it is gone), oldest first, until none is
 * left. Resolves with the ids applied. Rejects with the engine's error; the changes stay queued.
 */
export async function syncSearchIndex(deps: SearchSyncDeps, publicUrl: string): Promise<string[]> {
  const applied: string[] = [];
  for (;;) {
    const taken = await deps.outbox.drain(BATCH, async (ids) => {
      const records = await deps.livestreams.findManyById(ids);
      const present = new Set(records.map((r) => r.id));
      await deps.index.upsert(records.map((r) => toRecordDocument(r, publicUrl)));
      await deps.index.remove(ids.filter((id) => !present.has(id)));
      applied.push(...ids);
    });
    if (taken === 0) return applied;
  }
}

/** Rebuilds the index from scratch: empties it, queues every record and applies them. Resolves with the count. */
export async function reindexSearch(deps: SearchSyncDeps, publicUrl: string): Promise<number> {
  await deps.index.prepare();
  const queued = await deps.outbox.queueAll(() => deps.index.clear());
  await syncSearchIndex(deps, publicUrl);
  return queued;
}
