// The bytes of every object a sim serves, computed, never stored: word w of an object is a hash of (its seed, w), so
// the origin makes any range of it and the replay client checks any byte it reads at the offset it read it, without
// holding an object (the cold crowd's is 64 MiB, six times over) or reading it from the start.

/** An object's identity as its bytes know it: the path and the version the origin serves (a purge bumps it). */
export interface ContentId {
  path: string;
  version: number;
}

/** The seed of an object's bytes: FNV-1a of its path, mixed with its version. */
export function contentSeed(id: ContentId): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.path.length; i++) {
    hash ^= id.path.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return mix(hash ^ Math.imul(id.version + 1, 0x9e3779b9));
}

/** Bytes [start, start + length) of the object whose seed is `seed`. */
export function contentBytes(seed: number, start: number, length: number): Uint8Array {
  const firstWord = Math.floor(start / 4);
  const lastWord = Math.floor((start + length + 3) / 4);
  const words = new Uint32Array(lastWord - firstWord);
  for (let i = 0; i < words.length; i++) words[i] = mix(seed + Math.imul(firstWord + i, 0x9e3779b9));
  return new Uint8Array(words.buffer, start - firstWord * 4, length);
}

/** The strong entity tag of a version (RFC 9110 §8.8.3): it names the version, so a reader knows which bytes to expect. */
export function contentEtag(id: ContentId, size: number): string {
  return `"v${id.version}-${size.toString(16)}-${(contentSeed(id) >>> 0).toString(16)}"`;
}

/** The version an entity tag of contentEtag names; undefined when it is not one of ours. */
export function etagVersion(etag: string | undefined): number | undefined {
  const match = /^(?:W\/)?"v(\d+)-[0-9a-f]+-[0-9a-f]+"$/.exec(etag?.trim() ?? '');
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** The murmur3 finalizer: every input bit reaches every output bit. */
function mix(value: number): number {
  let z = value >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}
