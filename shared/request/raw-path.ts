// The path and query of a request's URL exactly as the client sent them, before the URL parser removes dot segments or
// re-encodes anything: what admission checks a signature against, and what a record names.

/** The path of a request's raw URL (`scheme://authority/path?query`), without parsing it. */
export function rawPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return start < 0 ? '/' : url.slice(start);
}
