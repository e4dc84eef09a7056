// What the edge remembers per isolate under a string a client chooses (a raw URL, a cookie): bounded by the characters
// of its keys, and forgotten whole past the bound, so that no client can make an isolate hold more.

/** Characters of keys remembered by one memo. */
export const REMEMBERED_CHARS = 1 << 20;

export class BoundedMemo<V> {
  readonly #entries = new Map<string, V>();
  #chars = 0;

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  /** Remembers `value` under `key`, forgetting everything first when the key's characters would pass the bound. */
  set(key: string, value: V): void {
    if (this.#chars + key.length > REMEMBERED_CHARS) {
      this.#entries.clear();
      this.#chars = 0;
    }
    this.#entries.set(key, value);
    this.#chars += key.length;
  }
}
