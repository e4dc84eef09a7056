// The one byte range a trace's Range field asks of an object, as the origin serves it and the replay client expects
// it back (RFC 9110 §14.1.2): `bytes=a-b`, `a-` or `-n`, clamped to the object.

/** Both ends included. */
export interface InclusiveRange {
  start: number;
  end: number;
}

/** The range; undefined when absent or not one range (§14.2: the whole object is then sent); 'unsatisfiable' (416). */
export function singleRange(header: string | undefined, size: number): InclusiveRange | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size) return 'unsatisfiable';
  return end < start ? undefined : { start, end };
}

/** `Content-Range: bytes a-b/size` (§14.4) read; undefined when it is not that form. */
export function parseContentRange(value: string | undefined): { start: number; end: number; size: number } | undefined {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(value?.trim() ?? '');
  if (!match) return undefined;
  return { start: Number(match[1]), end: Number(match[2]), size: Number(match[3]) };
}
