// RFC 9111 §4.4: what an unsafe request's answer invalidates. "A cache MUST invalidate the
// target URI ... when it receives a non-error status code in response to an unsafe request
// method", and likewise the URIs in Location and Content-Location, but "MUST NOT invalidate a
// URI from a Location or Content-Location response header field if the host part of that URI
// differs from the host part in the target URI".

/** The URLs whose stored responses a tier drops after `status` with `headers` for `target`. */
export function invalidatedUrls(target: URL, status: number, headers: Headers): URL[] {
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
    if (url.host === target.host && url.protocol === target.protocol) urls.push(url);
  }
  return urls;
}
