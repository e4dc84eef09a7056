// `npm start`'s look at the origin (local/origin-check.ts), against the real workers and the
// embedded S3 server: the line it prints for an origin that serves and for a wrong secret.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOrigin } from '../../local/origin-check.ts';
import { type Fixture, startFixture } from '../integration/fixture.ts';

let good: Fixture;
let wrongSecret: Fixture;
beforeAll(async () => {
  [good, wrongSecret] = await Promise.all([startFixture(), startFixture({ S3_SECRET_ACCESS_KEY: 'not-the-secret' })]);
});
afterAll(() => Promise.all([good?.close(), wrongSecret?.close()]));

describe('checkOrigin', () => {
  it('prints that the embedded S3 origin serves: origin ok, and why', async () => {
    expect(await checkOrigin(good.stack.url)).toMatch(
      /^ {2}check {3}origin ok: serves; the probed key names no object \(404 NoSuchKey\)/,
    );
  });

  it('prints that an origin refusing the secret cannot serve, naming the setting to check', async () => {
    const line = await checkOrigin(wrongSecret.stack.url);
    expect(line).toMatch(
      /^ {2}check {3}origin credentials: CANNOT SERVE \(\/__tiercache\/health answers 503\); .*SignatureDoesNotMatch.*S3_SECRET_ACCESS_KEY/,
    );
    expect(line).not.toContain('not-the-secret');
  });

  it('says so when nothing answers at the address', async () => {
    expect(await checkOrigin('http://127.0.0.1:1')).toMatch(/^ {2}check {3}the health endpoint did not answer/);
  });
});
