// What an unsafe request's answer invalidates (RFC 9111 §4.4): its target URI, and the URIs of its
// Location and Content-Location on the same host.

/**
 * Safe methods (RFC 9110 §9.2.1, and the IANA method registry's "safe" column): an answer to one
 * invalidates nothing.
 */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'REPORT', 'SEARCH', 'QUERY']);

/**
 * The URLs whose stored responses a tier drops after `status` with `headers` for `target`, asked with
 * `method`. RFC 9111 §4.4: "A cache MUST invalidate the target URI ... when it receives a non-error
 * status code in response to an unsafe request method", and likewise the URIs in Location and
 * Content-Location.
 */
export function invalidatedUrls(target: URL, status: number, headers: Headers, method: string): URL[] {
  if (SAFE_METHODS.has(method.toUpperCase())) return [];
  // §4.4: "non-error status code": 2xx and 3xx.
  if (status < 200 || status >= 400) return [];
  const urls = [target];
  for (const name of ['location', 'content-location']) {
    const value = headers.get(name);
    if (value === null) continue;
    let url: URL;
    try {
      url = new URL(value, target);
    } catch {
      continue;
    }
    // §4.4: "MUST NOT invalidate a URI from a Location or Content-Location response header field if
    // the host part of that URI differs from the host part in the target URI".
    if (url.host === target.host && url.protocol === target.protocol) urls.push(url);
  }
  return urls;
}
