// Decisions: docs/decisions/0049-hand-written-index-library-lru.md
/**
 * The first `k` of the items offered, in `compare` order, without sorting them all: a heap whose
 * root is the last of those kept, so most items are turned away by one comparison.
 */
export class TopK<T> {
  private readonly heap: T[] = [];

  constructor(
    private readonly k: number,
    /** Negative when `a` comes before `b`. */
    private readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    const { heap, k } = this;
    if (k === 0) return;
    if (heap.length < k) {
      heap.push(item);
      this.up(heap.length - 1);
    } else if (this.compare(item, heap[0] as T) < 0) {
      heap[0] = item;
      this.down(0);
    }
  }

  /** The items kept, first first. */
  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }

  // the heap puts the item that comes last at the root
  private after(i: number, j: number): boolean {
    return this.compare(this.heap[i] as T, this.heap[j] as T) > 0;
  }

  private swap(i: number, j: number): void {
    const { heap } = this;
    [heap[i], heap[j]] = [heap[j] as T, heap[i] as T];
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.after(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.heap.length;
    for (;;) {
      let last = i;
      const left = 2 * i + 1;
      if (left < n && this.after(left, last)) last = left;
      if (left + 1 < n && this.after(left + 1, last)) last = left + 1;
      if (last === i) return;
      this.swap(i, last);
      i = last;
    }
  }
}

/** The `k` smallest of the numbers offered, as TopK does for items, on numbers alone (no comparator calls). */
export class SmallestKeys {
  private readonly heap: Float64Array;
  private size = 0;

  constructor(private readonly k: number) {
    this.heap = new Float64Array(k);
  }

  offer(key: number): void {
    const { heap, k } = this;
    if (this.size < k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if ((heap[parent] as number) >= key) break;
        heap[i] = heap[parent] as number;
        i = parent;
      }
      heap[i] = key;
    } else if (k > 0 && key < (heap[0] as number)) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= k) break;
        const child = left + 1 < k && (heap[left + 1] as number) > (heap[left] as number) ? left + 1 : left;
        if ((heap[child] as number) <= key) break;
        heap[i] = heap[child] as number;
        i = child;
      }
      heap[i] = key;
    }
  }

  /** The keys kept, smallest first. */
  sorted(): number[] {
    return Array.from(this.heap.subarray(0, this.size)).sort((a, b) => a - b);
  }
}
