// The secrets each worker is given (docs/configuration.md), and where `npm run deploy` gets
// one that is missing: SHIELD_TOKEN it makes itself (random, the same for both workers: the
// edge presents it, the shield checks it), the others it asks for (or reads from the
// environment variable of the same name, for CI). A secret is never printed, logged or echoed.

import { randomBytes } from 'node:crypto';

export type Worker = 'shield' | 'edge';

export interface SecretSpec {
  name: string;
  /** The workers it is put on. */
  workers: readonly Worker[];
  /** What a missing one means, said when it is asked for. */
  purpose: string;
  /** Required: the deploy stops without it. Optional: empty leaves the feature off. Generated: made here. */
  source: 'required' | 'optional' | 'generated';
  /** Only for an S3 origin (ORIGIN_KIND=s3). */
  s3Only?: boolean;
  /** What leaving an optional one unset means. */
  unset?: string;
}

/** Bytes of a generated SHIELD_TOKEN (256 bits). */
const TOKEN_BYTES = 32;

export const SECRETS: readonly SecretSpec[] = [
  {
    name: 'SHIELD_TOKEN',
    workers: ['shield', 'edge'],
    purpose: 'the credential the edge presents to the shield',
    source: 'generated',
  },
  {
    name: 'S3_ACCESS_KEY_ID',
    workers: ['shield'],
    purpose: 'the access key the shield signs origin requests with',
    source: 'required',
    s3Only: true,
  },
  {
    name: 'S3_SECRET_ACCESS_KEY',
    workers: ['shield'],
    purpose: 'the secret key the shield signs origin requests with',
    source: 'required',
    s3Only: true,
  },
  {
    name: 'PURGE_TOKEN',
    workers: ['edge'],
    purpose: 'the bearer token of POST /__tiercache/purge',
    source: 'optional',
    unset: 'purge stays disabled',
  },
  {
    name: 'STATS_TOKEN',
    workers: ['edge'],
    purpose: 'the token of the stats page',
    source: 'optional',
    unset: 'the stats page stays disabled',
  },
];

/** The secrets a deployment of `originKind` uses. */
export function secretsFor(originKind: string | undefined): SecretSpec[] {
  return SECRETS.filter((spec) => !spec.s3Only || (originKind ?? 's3') === 's3');
}

/**
 * The secrets to obtain: each one a worker lacks. SHIELD_TOKEN is made anew when either worker
 * lacks it (a secret cannot be read back, so the other's copy cannot be reused), and then put
 * on both.
 */
export function missingSecrets(
  specs: readonly SecretSpec[],
  present: Readonly<Record<Worker, ReadonlySet<string>>>,
): SecretSpec[] {
  return specs.filter((spec) => spec.workers.some((worker) => !present[worker].has(spec.name)));
}

export function generatedToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}
