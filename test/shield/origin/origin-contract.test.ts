// The Origin contract (origin-contract.ts) against both kinds the shield reaches, each over a real server: S3 against
// the embedded s3rver, which verifies every SigV4 signature (local/origin.ts), and a site against the sample site
// served as a plain web server would (bench/setup/sample-site-origin.ts). And against three deliberately broken
// origins, each of which must fail the clause it breaks.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../bench/setup/free-port.ts';
import { type SampleSiteOrigin, startSampleSiteOrigin } from '../../../bench/setup/sample-site-origin.ts';
import { sampleAssets } from '../../../local/assets.ts';
import { type S3Origin, startS3Origin } from '../../../local/origin.ts';
import { parseConfig, type RawConfig } from '../../../shared/config/config.ts';
import { BadGateway } from '../../../shared/http/errors.ts';
import type { Origin } from '../../../shield/origin/origin.ts';
import { originOf } from '../../../shield/origin/origin-of.ts';
import { type MakeOrigin, ORIGIN_CLAUSES, type OriginUnderTest, originViolations } from './origin-contract.ts';

/** The sample site's style sheet: a small text object both servers hold. */
const OBJECT_KEY = 'css/site.css';
const MISSING = '/no/such-object.txt';

function objectBytes(): Uint8Array {
  const asset = sampleAssets().find(({ key }) => key === OBJECT_KEY);
  if (asset === undefined || !(asset.body instanceof Uint8Array))
    throw new Error(`the sample site has no ${OBJECT_KEY}`);
  return asset.body;
}

let s3: S3Origin | undefined;
let site: SampleSiteOrigin | undefined;
/** Addresses nobody listens on: refused at once. */
let nowhere = '';
let nowhereElse = '';

beforeAll(async () => {
  [s3, site] = await Promise.all([startS3Origin(), startSampleSiteOrigin()]);
  await s3.putObject(OBJECT_KEY, objectBytes(), { 'content-type': 'text/css; charset=utf-8' });
  nowhere = `http://127.0.0.1:${await freePort()}`;
  nowhereElse = `http://127.0.0.1:${await freePort()}`;
});
afterAll(async () => {
  await Promise.all([s3?.close(), site?.close()]);
});

const S3_SETTINGS: RawConfig = { S3_BUCKET: 'assets', S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' };

function s3At(url: string, raw: RawConfig = {}): Origin {
  return originOf(parseConfig({ ...S3_SETTINGS, ORIGIN_URL: url, ...raw }));
}

function siteAt(url: string): Origin {
  return originOf(parseConfig({ ORIGIN_KIND: 'http', ORIGIN_URL: url }));
}

function underTest(origin: Origin, unreachable: Origin): OriginUnderTest {
  return { origin, unreachable, object: { path: `/${OBJECT_KEY}`, bytes: objectBytes() }, missing: MISSING };
}

const overS3: MakeOrigin = () => underTest(s3At(s3?.url ?? ''), s3At(nowhere));
const overSite: MakeOrigin = () => underTest(siteAt(site?.url ?? ''), siteAt(nowhere));

// ORIGIN_URL listing two endpoints, the preferred one refusing connections (failover-origin.ts over each kind).
const failingOverS3: MakeOrigin = () =>
  underTest(s3At(`${nowhere} ${s3?.url ?? ''}`), s3At(`${nowhere} ${nowhereElse}`));
const failingOverSite: MakeOrigin = () =>
  underTest(siteAt(`${nowhere} ${site?.url ?? ''}`), siteAt(`${nowhere} ${nowhereElse}`));

const IMPLEMENTATIONS: readonly [string, MakeOrigin][] = [
  ['S3, signed with SigV4 (s3rver, which verifies each signature)', overS3],
  ['a site (the sample site over HTTP)', overSite],
  ['S3 at two endpoints, the preferred one refusing connections (failoverOrigin)', failingOverS3],
  ['a site at two endpoints, the preferred one refusing connections (failoverOrigin)', failingOverSite],
];

describe.each(IMPLEMENTATIONS)('%s', (_name, make) => {
  it(`keeps every clause of the Origin contract (${ORIGIN_CLAUSES.length})`, async () => {
    expect(await originViolations(make)).toEqual([]);
  });
});

describe('the S3 origin is signed: s3rver checks it', () => {
  it('with the wrong secret, its failure is a 502 of ours naming the credentials, not the object', async () => {
    const origin = s3At(s3?.url ?? '', { S3_SECRET_ACCESS_KEY: 'not-the-secret' });
    const answer = await origin.fetch(origin.traits.target(new URL(`https://x/${OBJECT_KEY}`)), 'GET', {});
    const failure = await origin.failure(answer);
    expect(failure).toBeInstanceOf(BadGateway);
    expect(failure.message).toContain('SignatureDoesNotMatch');
  });
});

/** The site's origin with some members replaced. */
function brokenOrigin(change: (origin: Origin) => Partial<Origin>): MakeOrigin {
  return async () => {
    const under = await overSite();
    const { origin } = under;
    const replaced = change(origin);
    const broken: Origin = {
      traits: origin.traits,
      config: origin.config,
      keyPrefix: origin.keyPrefix,
      passesAnswersOn: origin.passesAnswersOn,
      forHost: replaced.forHost ?? ((host) => origin.forHost(host)),
      inBucket: replaced.inBucket ?? ((bucket) => origin.inBucket(bucket)),
      fetch: replaced.fetch ?? ((target, method, forwarded, ask) => origin.fetch(target, method, forwarded, ask)),
      keptHeaders: replaced.keptHeaders ?? ((headers) => origin.keptHeaders(headers)),
      failure: replaced.failure ?? ((response) => origin.failure(response)),
      bypassAnswer: replaced.bypassAnswer ?? ((response) => origin.bypassAnswer(response)),
      probeTarget: replaced.probeTarget ?? ((healthKey) => origin.probeTarget(healthKey)),
      probe: replaced.probe ?? ((ask) => origin.probe(ask)),
      passThrough: replaced.passThrough ?? ((target, request) => origin.passThrough(target, request)),
    };
    return { ...under, origin: broken };
  };
}

describe('a broken origin fails the clause it breaks', () => {
  it.each([
    [
      'a fetch that loses the last byte',
      brokenOrigin((origin) => ({
        async fetch(target, method, forwarded, ask) {
          const answer = await origin.fetch(target, method, forwarded, ask);
          if (answer.body === null) return answer;
          const body = new Uint8Array(await answer.arrayBuffer());
          return new Response(body.subarray(0, Math.max(0, body.length - 1)), answer);
        },
      })),
      'a GET of an object answers 200 with exactly its bytes',
    ],
    [
      'a failure that makes a missing object a 502',
      brokenOrigin(() => ({
        async failure(response) {
          await response.body?.cancel();
          return new BadGateway(`origin failed with status ${response.status}`);
        },
      })),
      "failure() of a missing object's answer is a NotFound",
    ],
    [
      'a fetch that drops the Range, answering whole',
      brokenOrigin((origin) => ({
        fetch: (target, method, { range: _range, ...forwarded }, ask) => origin.fetch(target, method, forwarded, ask),
      })),
      'a range answers 206 with exactly the Content-Range asked',
    ],
  ] as const)('%s', async (_name, make, clause) => {
    const violations = await originViolations(make);
    expect(
      violations.some((violation) => violation.startsWith(clause)),
      violations.join('\n'),
    ).toBe(true);
  });
});
