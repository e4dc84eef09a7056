// The shield's keys: what an unsafe method's answer invalidates (RFC 9111 §4.4) is keyed as a read of it would be, and
// a URL that names no object there is no key, as at the edge (worker/edge-address.ts), never a refusal of the answer.

import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/config.ts';
import { originOf } from '../../shield/origin/origin-of.ts';
import { invalidatedShieldKey } from '../../shield/shield-cache.ts';

const s3 = originOf(
  parseConfig({
    ORIGIN_URL: 'https://gateway.test',
    S3_BUCKET: 'assets',
    S3_ACCESS_KEY_ID: 'key',
    S3_SECRET_ACCESS_KEY: 'secret',
  }),
);
const site = originOf(parseConfig({ ORIGIN_KIND: 'http', ORIGIN_URL: 'https://site.test/base' }));

describe('invalidatedShieldKey', () => {
  it("keys a site's URL without the origin's base path, as its reads are keyed", () => {
    expect(invalidatedShieldKey(site, new URL('https://site.test/base/page?x=1'))).toBe(`${site.keyPrefix}/page?x=1`);
  });

  it("keys an S3 object's URL with its bucket", () => {
    expect(invalidatedShieldKey(s3, new URL('https://gateway.test/a/b.txt'))).toBe(`${s3.keyPrefix}/a/b.txt`);
  });

  it('gives no key for a URL that names no object (the bucket root), where a read of it would be refused', () => {
    expect(invalidatedShieldKey(s3, new URL('https://gateway.test/'))).toBeUndefined();
  });
});
