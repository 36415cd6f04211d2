import type { SortField } from '../../core/search/search.js';
import { bySort, sortValue, type IndexedDocument } from './indexed-document.js';

/** New slots put in their place one by one (a move of the order each); more are sorted in together. */
export const PLACED_ONE_BY_ONE = 32;

/**
 * Slots in one sort field's order, ascending (documents without the value last, ties newest
 * first): built at the first search that sorts the whole index by the field, then kept. A few new
 * slots are each put in their place; more are appended and sorted in (their own sort, then one
 * merge) at the next search. 4 bytes a slot, in an array grown by a quarter at a time.
 */
export class FieldOrder {
  private order: Int32Array;
  private length = 0;
  /** `order` is sorted up to here; the slots after it are new. */
  private sortedUpTo = 0;
  private readonly compare: (a: number, b: number) => number;

  /** `newest`: the live slots newest first, the order kept among equal values. */
  constructor(
    readonly field: SortField,
    private readonly slots: readonly IndexedDocument[],
    newest: readonly number[],
  ) {
    this.compare = bySort(slots, [{ field, order: 'asc' }]);
    // numbers sorted natively, no comparator called (seconds at a million): each slot's key is its
    // value's rank among the values, then its place newest first (both under n, so the key is exact)
    // (plain loops: TypedArray.from and map with a function are several times slower)
    const n = newest.length;
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) values[i] = sortValue(field, slots[newest[i] as number] as IndexedDocument) ?? Infinity;
    const ranked = values.slice().sort();
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = firstAtLeast(ranked, values[i] as number) * n + i;
    keys.sort();
    this.order = new Int32Array(n);
    for (let i = 0; i < n; i++) this.order[i] = newest[(keys[i] as number) % n] as number;
    this.length = n;
    this.sortedUpTo = n;
  }

  /** Adds new slots (every slot is added once; dead ones are skipped by searches). */
  add(fresh: readonly number[]): void {
    this.reserve(this.length + fresh.length);
    const oneByOne = this.sortedUpTo === this.length && fresh.length <= PLACED_ONE_BY_ONE;
    for (const slot of fresh) {
      const at = oneByOne ? this.placeOf(slot, 0, this.length) : this.length;
      this.order.copyWithin(at + 1, at, this.length);
      this.order[at] = slot;
      this.length += 1;
    }
    if (oneByOne) this.sortedUpTo = this.length;
  }

  /** The slots in order, all sorted: a view valid until the next `add`. */
  sorted(): Int32Array {
    if (this.sortedUpTo < this.length) {
      // the new slots sorted, each then found its place in the rest by a binary search: the rest is copied, not compared
      const tail = Array.from(this.order.subarray(this.sortedUpTo, this.length)).sort(this.compare);
      const merged = new Int32Array(this.order.length);
      let from = 0;
      let k = 0;
      for (const slot of tail) {
        const at = this.placeOf(slot, from, this.sortedUpTo);
        merged.set(this.order.subarray(from, at), k);
        k += at - from;
        from = at;
        merged[k++] = slot;
      }
      merged.set(this.order.subarray(from, this.sortedUpTo), k);
      this.order = merged;
      this.sortedUpTo = this.length;
    }
    return this.order.subarray(0, this.length);
  }

  /** Where the first slot without a value is (`length` when every slot has one). */
  firstWithout(order: Int32Array): number {
    let low = 0;
    let high = order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (sortValue(this.field, this.slots[order[mid] as number] as IndexedDocument) !== null) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Where `slot` goes among the sorted slots from `low` to `high`. */
  private placeOf(slot: number, low: number, high: number): number {
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.compare(this.order[mid] as number, slot) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private reserve(size: number): void {
    if (size <= this.order.length) return;
    // by a quarter: at most a fifth of the order unused (an order grows with the index, a document at a time)
    const grown = new Int32Array(Math.max(size, Math.ceil(this.order.length * 1.25), 1024));
    grown.set(this.order.subarray(0, this.length));
    this.order = grown;
  }
}

/** The index of the first of the ascending `sorted` that is `value` or more. */
function firstAtLeast(sorted: Float64Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as number) < value) low = mid + 1;
    else high = mid;
  }
  return low;
}
