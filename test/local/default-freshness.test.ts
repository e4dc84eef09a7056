// What `npm start` says of objects the origin gives no freshness (local/default-freshness.ts): the rule in force,
// in numbers, and how to change it, so that an upload that is not stored surprises nobody.

import { describe, expect, it } from 'vitest';
import { defaultFreshnessLine } from '../../local/default-freshness.ts';
import { parseConfig } from '../../shared/config/config.ts';

const HTTP = { ORIGIN_KIND: 'http', ORIGIN_URL: 'http://127.0.0.1:9', SHIELD_TOKEN: 't' };
const S3 = { S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's', SHIELD_TOKEN: 't' };

describe('the default freshness npm start prints', () => {
  it('http, by default: 10% of the time since Last-Modified (at most a day); without it, not stored, and how to store it', () => {
    expect(defaultFreshnessLine(parseConfig(HTTP))).toBe(
      "  fresh   objects without Cache-Control or Expires: 10% of the time since their Last-Modified, at most 86400 s (RFC 9111 §4.2.2: uploaded an hour ago, 360 s); without Last-Modified, not stored: set DEFAULT_TTL=120 (as Varnish) or a rule's edgeTtl to store them",
    );
  });

  it('http with DEFAULT_TTL, and s3 by default: stored for that long', () => {
    expect(defaultFreshnessLine(parseConfig({ ...HTTP, DEFAULT_TTL: '120' }))).toBe(
      '  fresh   objects without Cache-Control or Expires: stored for 120 s (DEFAULT_TTL)',
    );
    expect(defaultFreshnessLine(parseConfig(S3))).toBe(
      '  fresh   objects without Cache-Control or Expires: stored for 3600 s (DEFAULT_TTL)',
    );
  });

  it("names the rules' edgeTtl where rules are set", () => {
    const rules = JSON.stringify([{ name: 'html', match: { extension: 'html' }, edgeTtl: 60 }]);
    expect(defaultFreshnessLine(parseConfig({ ...HTTP, DEFAULT_TTL: '120', RULES: rules }))).toBe(
      "  fresh   objects without Cache-Control or Expires: stored for 120 s (DEFAULT_TTL); a matching rule's edgeTtl in its place",
    );
  });
});
