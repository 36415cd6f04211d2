// Decisions: docs/decisions/0097-builtin-search-in-a-thread-of-its-own.md
import { MAX_TOTAL_HITS, type SearchRequest } from '../../core/search/search.js';
import type { FieldOrder } from './field-order.js';
import { bySort, sortValue, type IndexedDocument } from './indexed-document.js';

/** A search of the whole index (no words asked): what it skips, and how many slots its page wants. */
export interface Walk {
  alive: Uint8Array;
  slots: readonly IndexedDocument[];
  accepts: ((document: IndexedDocument) => boolean) | null;
  /** Slots already first on the page (the ids the query is). */
  skip: readonly number[];
  /** false when every live slot is a hit (no filter): the total is known without counting, and the walk stops once the page is full. */
  counts: boolean;
  keep: number;
  /**
   * Slots a walk of a field's order may read before it gives up: it reads documents out of their
   * memory order, several times slower a slot than a scan newest first (a filter few pass).
   */
  budget: number;
}

export interface Walked {
  /** The page's slots, in order (up to `keep`). */
  page: number[];
  /** Hits counted (beyond `skip`), up to what MAX_TOTAL_HITS needs; only the page's when the walk does not count. */
  counted: number;
  /** Slots read: the walk's work. */
  examined: number;
  /** The budget ran out before the page was full and counted: the page and count are not to be used. */
  gaveUp: boolean;
}

/** Takes hits in the order met until the page is full and the count reaches MAX_TOTAL_HITS. */
class Pager implements Walked {
  page: number[] = [];
  counted = 0;
  examined = 0;
  private readonly countTo: number;

  constructor(private readonly walk: Walk) {
    this.countTo = walk.counts ? MAX_TOTAL_HITS - walk.skip.length : 0;
  }

  hit(slot: number): boolean {
    this.examined += 1;
    const { alive, accepts, skip } = this.walk;
    if (alive[slot] === 0 || (accepts !== null && !accepts(this.walk.slots[slot] as IndexedDocument))) return false;
    return skip.length === 0 || !skip.includes(slot);
  }

  take(slot: number): void {
    this.counted += 1;
    if (this.page.length < this.walk.keep) this.page.push(slot);
  }

  get done(): boolean {
    return (this.page.length >= this.walk.keep && this.counted >= this.countTo) || this.gaveUp;
  }

  get gaveUp(): boolean {
    return this.examined >= this.walk.budget;
  }
}

/** The page in `newest` order (newest first; `backward`, its exact reverse). */
export function walkNewest(newest: readonly number[], backward: boolean, walk: Walk): Walked {
  const pager = new Pager(walk);
  const n = newest.length;
  for (let i = 0; i < n && !pager.done; i++) {
    const slot = newest[backward ? n - 1 - i : i] as number;
    if (pager.hit(slot)) pager.take(slot);
  }
  return pager;
}

/**
 * The page in `sort` order, read from the first sort field's kept order: its runs of one value
 * in the order asked (documents without the value last either way), each run in the order the
 * other sort fields ask (a run sorted alone; read straight through when there are none, its order
 * being newest first already).
 */
export function walkField(order: FieldOrder, sort: SearchRequest['sort'], walk: Walk): Walked {
  const pager = new Pager(walk);
  const all = order.sorted();
  const n = all.length;
  const withoutValue = order.firstWithout(all);
  const value = (i: number) => sortValue(order.field, walk.slots[all[i] as number] as IndexedDocument);
  // the last place of the run of one value that goes on from `from` stepping by `step`, before `stop`:
  // found by galloping, then halving (a few reads for a run of thousands: a million documents may
  // share a hundred lengths), one read for a run of one
  const runEdge = (from: number, step: 1 | -1, stop: number): number => {
    const wanted = value(from);
    let same = from;
    let other = stop;
    for (let size = 1; (from + step * size - stop) * step < 0; size *= 2) {
      const probe = from + step * size;
      if (value(probe) !== wanted) {
        other = probe;
        break;
      }
      same = probe;
    }
    while (Math.abs(other - same) > 1) {
      const mid = same + step * (Math.abs(other - same) >> 1);
      if (value(mid) === wanted) same = mid;
      else other = mid;
    }
    return same;
  };
  const rest = sort.length > 1;
  const full = bySort(walk.slots, sort);
  const run = (low: number, high: number): boolean => {
    if (!rest) {
      for (let i = low; i < high && !pager.done; i++) if (pager.hit(all[i] as number)) pager.take(all[i] as number);
      return pager.done;
    }
    const hits: number[] = [];
    for (let i = low; i < high && !pager.gaveUp; i++) if (pager.hit(all[i] as number)) hits.push(all[i] as number);
    for (const slot of hits.sort(full)) pager.take(slot);
    return pager.done;
  };
  if (sort[0]?.order === 'desc') {
    for (let high = withoutValue; high > 0;) {
      const low = runEdge(high - 1, -1, -1);
      if (run(low, high)) return pager;
      high = low;
    }
    run(withoutValue, n);
    return pager;
  }
  if (!rest) {
    run(0, n);
    return pager;
  }
  for (let low = 0; low < withoutValue;) {
    const high = runEdge(low, 1, withoutValue) + 1;
    if (run(low, high)) return pager;
    low = high;
  }
  run(withoutValue, n);
  return pager;
}
