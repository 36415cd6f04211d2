/** Values by key, the most recently used kept while their weights (1 each by default) fit the budget. */
export class Lru<V> {
  private readonly values = new Map<string, V>();
  private weight = 0;

  constructor(
    private readonly budget: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  get(key: string): V | undefined {
    const value = this.values.get(key);
    if (value !== undefined) {
      this.values.delete(key);
      this.values.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    if (this.weigh(value) > this.budget) return;
    this.delete(key);
    this.values.set(key, value);
    this.weight += this.weigh(value);
    for (const [oldest, old] of this.values) {
      if (this.weight <= this.budget) break;
      this.values.delete(oldest);
      this.weight -= this.weigh(old);
    }
  }

  delete(key: string): void {
    const value = this.values.get(key);
    if (value === undefined) return;
    this.values.delete(key);
    this.weight -= this.weigh(value);
  }

  clear(): void {
    this.values.clear();
    this.weight = 0;
  }
}
