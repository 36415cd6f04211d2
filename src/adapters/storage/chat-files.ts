// Decisions: docs/decisions/0112-finalized-captures-keep-summaries.md
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { objectKeys } from '../../core/archive/object-keys.js';
import type { ArchiveStore } from '../../core/archive/ports.js';
import type { ChatLine } from '../../core/chat/chat.js';
import type { ChatFiles } from '../../core/chat/ports.js';

/**
 * Lines of stored chat files an api process keeps parsed, at most: a viewer's chat follows the
 * player a window at a time, and reading the whole file again for each would cost a chat's
 * length per window. About 400 bytes of heap a line; a file longer than this is read every time.
 */
export const CHAT_FILE_CACHE_LINES = 50_000;

/**
 * The chat files stored beside finished archives (objectKeys.chat: gzip NDJSON, oldest first),
 * read whole and kept parsed, the most recently read first, within `cacheLines`. A file is known
 * by its record and when its chat was filed, so one stored again (a record taken down and archived
 * anew) is never answered from the old one.
 */
export function createChatFiles(store: Pick<ArchiveStore, 'read' | 'stat'>, cacheLines = CHAT_FILE_CACHE_LINES): ChatFiles {
  const kept = new Map<string, readonly ChatLine[]>();
  const reading = new Map<string, Promise<readonly ChatLine[] | null>>();
  let keptLines = 0;

  const keep = (key: string, lines: readonly ChatLine[]) => {
    if (lines.length > cacheLines) return;
    kept.set(key, lines);
    keptLines += lines.length;
    for (const [oldest, old] of kept) {
      if (keptLines <= cacheLines) break;
      kept.delete(oldest);
      keptLines -= old.length;
    }
  };

  const read = async (livestreamId: string): Promise<readonly ChatLine[] | null> => {
    const key = objectKeys.chat(livestreamId);
    if ((await store.stat(key)) === null) return null;
    const lines: ChatLine[] = [];
    const text = createInterface({ input: (await store.read(key)).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of text) if (line !== '') lines.push(JSON.parse(line) as ChatLine);
    return lines;
  };

  return {
    async lines(livestreamId, filedAt) {
      const key = `${livestreamId}@${filedAt.getTime()}`;
      const cached = kept.get(key);
      if (cached !== undefined) {
        // read again: the most recently read are dropped last
        kept.delete(key);
        kept.set(key, cached);
        return cached;
      }
      // viewers opening one archive at once read its file once
      let pending = reading.get(key);
      if (pending === undefined) {
        pending = read(livestreamId).finally(() => reading.delete(key));
        reading.set(key, pending);
        void pending.then((lines) => lines !== null && keep(key, lines)).catch(() => undefined);
      }
      return pending;
    },
  };
}
