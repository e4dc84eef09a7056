// The edge's first step (worker/admission.ts) as a property, in both origin kinds: whatever a client writes with
// segments, slashes (`//`, `%2F`, `%2f`, `%5C`), dots (`.`, `..`, `%2e`) and cases, a path is refused without a token
// when any reading of it lies under a protected prefix, and a token for a folder admits it only when every reading of
// it lies inside the folder. The readings are computed here on their own, from the RFC's steps: as the tiers forward
// the path, and as the most lenient origin resolves it (decoded up to three times, `\` a separator, `;` parameters
// dropped, slashes merged, dot segments removed as RFC 3986 §5.2.4 writes it; an http origin's case-folded too).

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ProtectedPaths } from '../../shared/admission/protected-paths.ts';
import { signToken } from '../../shared/admission/signer.ts';
import { SignatureVerifier } from '../../shared/admission/verifier.ts';
import { type Config, type OriginKind, parseConfig, type RawConfig } from '../../shared/config/config.ts';
import { SignatureRefused } from '../../shared/http/errors.ts';
import { normalizePath } from '../../shared/request/canonical-path.ts';
import { requestTarget } from '../../shared/request/request-target.ts';
import { admission, type SignedAdmission } from '../../worker/admission.ts';
import { removeDotSegments } from '../shared/request/dot-segments.ts';

const SECRET = 'admission-property-secret-0123456789';
const PROTECTED = ['/private/', '/video/ep1/'];
const FOLDER = '/video/ep1/';
const SETTINGS: Record<OriginKind, RawConfig> = {
  http: { ORIGIN_KIND: 'http', ORIGIN_URL: 'http://origin.example' },
  s3: { S3_BUCKET: 'assets', S3_ACCESS_KEY_ID: 'AKID', S3_SECRET_ACCESS_KEY: 'SECRET-KEY-VALUE' },
};

function setup(kind: OriginKind): { config: Config; signed: SignedAdmission } {
  const config = parseConfig({ ...SETTINGS[kind], SIGNING_KEYS: `k=${SECRET}`, SIGNED_PREFIXES: PROTECTED.join(',') });
  const paths = new ProtectedPaths(config.admission.signedPrefixes, kind);
  return { config, signed: { paths, verifier: new SignatureVerifier(config.admission.signingKeys, paths) } };
}

/** What admission says of `target` (with `query`): passed untouched, admitted, or refused with a reason. */
async function verdict(kind: OriginKind, target: string, query = ''): Promise<'passed' | 'admitted' | string> {
  const { config, signed } = stacks[kind];
  const request = new Request(`https://cdn.example${target}${query}`);
  const answer = await admission(request, { config }, signed);
  if (answer === request) return 'passed';
  if (answer instanceof SignatureRefused) return answer.reason;
  return 'admitted';
}

let stacks: Record<OriginKind, { config: Config; signed: SignedAdmission }>;
let folderToken: string;

beforeAll(async () => {
  stacks = { http: setup('http'), s3: setup('s3') };
  folderToken = await signToken({ keyId: 'k', secret: SECRET, path: FOLDER, prefix: true, expires: 4_000_000_000 });
});

// --- the readings, on their own ------------------------------------------------------------

/** The path as the tiers forward it (shared/request/request-target.ts), for a key S3 refuses its parsed spelling. */
function forwarded(target: string, kind: OriginKind): string {
  const url = new URL(`https://cdn.example${target}`);
  try {
    return requestTarget(url, kind).path;
  } catch {
    return normalizePath(url.pathname);
  }
}

/**
 * As the most lenient origins read a forwarded path: decoded, `\\` a slash, `;` parameters dropped, and slashes merged
 * before the dot segments are removed (nginx, Tomcat) or after (RFC 3986 alone, then the file system).
 */
function lenient(path: string): [string, string] {
  let text = path;
  for (let i = 0; i < 3; i++)
    text = text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  const joined = text
    .replace(/\\/g, '/')
    .split('/')
    .map((segment) => segment.split(';', 1)[0])
    .join('/');
  return [removeDotSegments(joined.replace(/\/+/g, '/')) || '/', removeDotSegments(joined).replace(/\/+/g, '/') || '/'];
}

/**
 * Each reading of `target` against the same reading of `prefix`: whether it lies under it. An http origin's lenient
 * readings are read case-folded too (IIS, case-insensitive file systems), and as they are (a case-sensitive one).
 */
function readingsUnder(target: string, prefix: string, kind: OriginKind): boolean[] {
  const path = forwarded(target, kind);
  const canonicalPrefix = forwarded(prefix, kind);
  const [prefixFirst, prefixAfter] = lenient(canonicalPrefix);
  const lenientUnder = lenient(path).flatMap((reading, i) => {
    const under = i === 0 ? prefixFirst : prefixAfter;
    return kind === 'http'
      ? [reading.startsWith(under), reading.toLowerCase().startsWith(under.toLowerCase())]
      : [reading.startsWith(under)];
  });
  return [path.startsWith(canonicalPrefix), ...lenientUnder];
}

// --- the paths a client may write ------------------------------------------------------------

const name = fc.constantFrom(
  'private',
  'PRIVATE',
  'Private',
  'video',
  'Video',
  'ep1',
  'EP1',
  'ep2',
  'x',
  'a.txt',
  ';p',
);
const dots = fc.constantFrom('.', '..', '%2e', '%2E', '%2e%2e', '.%2e', '%2E.', '..;x');
const separator = fc.constantFrom('/', '/', '//', '%2F', '%2f', '%5C', '%5c', '%252F');
/** Often starting inside a protected folder, where a climb out of it is the way to try. */
const start = fc.constantFrom('/', '/', '/video/ep1/', '/private/', '/x/');
const target = fc
  .tuple(
    start,
    fc.array(fc.tuple(fc.oneof({ weight: 3, arbitrary: name }, { weight: 2, arbitrary: dots }), separator), {
      maxLength: 6,
    }),
  )
  .map(([first, parts]) => `${first}${parts.map(([part, sep]) => `${part}${sep}`).join('')}`);

describe('admission (properties)', () => {
  for (const kind of ['http', 's3'] as const) {
    it(`${kind}: without a token, refuses every path any reading of which lies under a protected prefix, and passes the rest`, async () => {
      await fc.assert(
        fc.asyncProperty(target, async (path) => {
          const under = PROTECTED.some((prefix) => readingsUnder(path, prefix, kind).some(Boolean));
          expect(await verdict(kind, path), path).toBe(under ? 'missing' : 'passed');
        }),
        { numRuns: 2000 },
      );
    });

    it(`${kind}: a token for ${FOLDER} admits a path only when every reading of it lies inside the folder`, async () => {
      await fc.assert(
        fc.asyncProperty(target, async (path) => {
          const inside = readingsUnder(path, FOLDER, kind).every(Boolean);
          const said = await verdict(kind, path, `?${folderToken}`);
          if (said === 'passed') return;
          expect(said, path).toBe(inside ? 'admitted' : 'wrong-prefix');
        }),
        { numRuns: 2000 },
      );
    });
  }

  it('the spellings a review found open are among those refused, and the climb out of a granted folder too', async () => {
    for (const kind of ['http', 's3'] as const) {
      for (const path of [
        '//private/secret.txt',
        '/%2Fprivate/secret.txt',
        '/%2fprivate/secret.txt',
        '/%5Cprivate/secret.txt',
        '/x/..%2Fprivate/secret.txt',
        '/x/%2e%2e%2Fprivate/secret.txt',
        '/x/..%252Fprivate/secret.txt',
      ])
        expect(await verdict(kind, path), `${kind} ${path}`).toBe('missing');
      expect(await verdict(kind, '/video/ep1/..%2Fep2/x.ts', `?${folderToken}`), kind).toBe('wrong-prefix');
    }
    expect(await verdict('http', '/private%2Fsecret.txt')).toBe('missing');
    expect(await verdict('http', '/PRIVATE/secret.txt')).toBe('missing');
    // A bucket's keys are case-sensitive: this is another object, outside the prefix.
    expect(await verdict('s3', '/PRIVATE/secret.txt')).toBe('passed');
  });
});
