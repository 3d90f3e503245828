/**
 * A Map that keeps at most `max` entries, dropping the least recently touched
 * one. Requests name schools and partners freely, so the set of names must be
 * bounded too.
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly max: number) {}

  /** The value for key, created with make() when missing; marks it most recently used. */
  touch(key: K, make: () => V): V {
    const existing = this.map.get(key);
    if (existing !== undefined) {
      this.map.delete(key);
      this.map.set(key, existing);
      return existing;
    }
    const value = make();
    this.map.set(key, value);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
    return value;
  }

  /** Sets (or replaces) the value for key and marks it most recently used. */
  set(key: K, value: V): void {
    this.map.delete(key);
    this.touch(key, () => value);
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }
}
