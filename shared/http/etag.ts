// Entity tags (RFC 9110 §8.8.3): the one grammar every tier reads them by, and the two
// comparison functions of §8.8.3.2. Pure.

/** entity-tag = [ weak ] opaque-tag; opaque-tag = DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text. */
const ENTITY_TAG = /^(W\/)?("[\x21\x23-\x7e\x80-\xff]*")$/;

/** A tag's weakness and opaque-tag; undefined for what is no entity-tag. */
export function parseEntityTag(value: string): { weak: boolean; opaque: string } | undefined {
  const match = ENTITY_TAG.exec(value.trim());
  return match === null || match[2] === undefined ? undefined : { weak: match[1] !== undefined, opaque: match[2] };
}

/** Whether `etag` is a strong tag: one that can pin a version (§8.8.1: a weak tag does not promise the same bytes). */
export function isStrongEtag(etag: string | null): etag is string {
  if (etag === null) return false;
  const tag = parseEntityTag(etag);
  return tag !== undefined && !tag.weak && etag === etag.trim();
}

/** §8.8.3.2 strong comparison: both not weak, and their opaque-tags identical. */
export function strongMatch(a: string, b: string): boolean {
  const [x, y] = [parseEntityTag(a), parseEntityTag(b)];
  return x !== undefined && y !== undefined && !x.weak && !y.weak && x.opaque === y.opaque;
}

/** §8.8.3.2 weak comparison: opaque-tags identical, either or both may be weak. */
export function weakMatch(a: string, b: string): boolean {
  const [x, y] = [parseEntityTag(a), parseEntityTag(b)];
  return x !== undefined && y !== undefined && x.opaque === y.opaque;
}
