import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ConfigName,
  configFrom,
  parseConfig,
  type RawConfig,
  SECRET_CONFIG_NAMES,
  STORJ_GATEWAY,
} from '../../../shared/config/config.ts';
import { ConfigError } from '../../../shared/http/errors.ts';

const s3Minimal: RawConfig = {
  S3_BUCKET: 'assets',
  S3_ACCESS_KEY_ID: 'AKID',
  S3_SECRET_ACCESS_KEY: 'SECRET-KEY-VALUE',
};
const httpMinimal: RawConfig = { ORIGIN_KIND: 'http', ORIGIN_URL: 'https://www.example.com' };

/** The ConfigError parseConfig throws for this input. */
function configError(raw: RawConfig): ConfigError {
  try {
    parseConfig(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(raw)}`);
}

describe('parseConfig defaults', () => {
  it('serves an S3 bucket through the Storj gateway, path-style in us-east-1, by default', () => {
    const config = parseConfig(s3Minimal);
    expect(config.originKind).toBe('s3');
    expect(config.originUrl.href).toBe(`${STORJ_GATEWAY}/`);
    expect(config.s3).toEqual({
      bucket: 'assets',
      hostBuckets: new Map(),
      region: 'us-east-1',
      accessKeyId: 'AKID',
      secretAccessKey: 'SECRET-KEY-VALUE',
      addressing: 'path',
    });
  });

  it('maps host names to buckets with HOST_BUCKETS, making S3_BUCKET optional', () => {
    const config = parseConfig({
      ...s3Minimal,
      S3_BUCKET: undefined,
      HOST_BUCKETS: 'CDN.a.example=site-a, cdn.b.example = site-b',
    });
    expect(config.s3?.bucket).toBe('');
    expect([...(config.s3?.hostBuckets ?? [])]).toEqual([
      ['cdn.a.example', 'site-a'],
      ['cdn.b.example', 'site-b'],
    ]);
    expect(() => parseConfig({ ...s3Minimal, HOST_BUCKETS: 'no-equals-sign' })).toThrow(
      /^HOST_BUCKETS: expected host=bucket pairs/,
    );
  });

  it('gives objects without explicit freshness an hour in S3 mode', () => {
    expect(parseConfig(s3Minimal).defaultTtl).toBe(3600);
  });

  it('gives the origin 10 seconds to answer and has no shield token by default', () => {
    const config = parseConfig(s3Minimal);
    expect(config.originTimeoutMs).toBe(10_000);
    expect(config.originIdleTimeoutMs).toBe(10_000);
    // Half of Storj's 500 transfers per project; a short wait on a busy origin.
    expect(config.originBudget).toEqual({ concurrency: 250, busyWaitMs: 2_000 });
    expect(config.shieldToken).toBeUndefined();
    // Hedging acts only with several endpoints (shield/origin/origin-of.ts), and is on for them unless turned off.
    expect(config.originHedge).toBe(true);
  });

  it('treats a blank setting as absent', () => {
    const config = parseConfig({
      ...s3Minimal,
      S3_REGION: '  ',
      S3_ADDRESSING: '',
      DEFAULT_TTL: ' ',
      ORIGIN_TIMEOUT_MS: '',
      SHIELD_TOKEN: '   ',
    });
    expect(config.s3?.region).toBe('us-east-1');
    expect(config.s3?.addressing).toBe('path');
    expect(config.defaultTtl).toBe(3600);
    expect(config.originTimeoutMs).toBe(10_000);
    expect(config.shieldToken).toBeUndefined();
  });
});

describe('parseConfig with every setting given', () => {
  it('uses each setting as given, trimmed', () => {
    const config = parseConfig({
      ORIGIN_KIND: 's3',
      ORIGIN_URL: 'http://127.0.0.1:4569',
      S3_BUCKET: ' media ',
      S3_REGION: 'eu-west-1',
      S3_ACCESS_KEY_ID: 'AKID2',
      S3_SECRET_ACCESS_KEY: 'SECRET2',
      S3_ADDRESSING: 'virtual',
      ORIGIN_TIMEOUT_MS: '2500',
      ORIGIN_HEDGE: 'off',
      ORIGIN_IDLE_TIMEOUT_MS: '750',
      ORIGIN_CONCURRENCY: ' 40 ',
      ORIGIN_BUSY_WAIT_MS: '500',
      DEFAULT_TTL: '0',
      SHIELD_TOKEN: ' token ',
      SLICE_SIZE: '16MiB',
      SLICE_THRESHOLD: '33554432',
      SLICE_READAHEAD: '3',
      SLICE_PARALLEL: ' 12 ',
      PREFETCH_SEGMENTS: ' 2 ',
      SUBREQUEST_LIMIT: '50',
      WHOLE_COPY_MAX: ' 128MiB ',
      MEMORY_CACHE_SIZE: ' 16MiB ',
      MEMORY_OBJECT_MAX: '256KiB',
      ABANDONED_FILL_MAX: ' 2MiB ',
      ABANDONED_ISOLATE_MAX: '6MiB',
      UNKNOWN_LENGTH_MAX: '64MiB',
      UNKNOWN_LENGTH_TIMEOUT_MS: '30000',
      INDEX_DOCUMENT: ' index.html ',
      NOT_FOUND_DOCUMENT: ' 404.html ',
      CONTENT_TYPE_FROM_EXTENSION: 'off',
      CORS_ALLOW_ORIGINS: ' https://app.example ',
      PURGE_TOKEN: ' purge-secret ',
      EVENTS_TOKEN: ' events-secret ',
      STATS_TOKEN: ' stats-secret ',
      STATS_FLUSH_MS: '0',
      LOG_SAMPLE: ' 0.25 ',
      EGRESS_PRICE_PER_TB: '4.5',
      RULES: ' [{"name": "assets", "match": {"path": "/assets/*"}, "edgeTtl": 31536000}] ',
      SIGNING_KEYS: ' k1=0123456789abcdef0123456789abcdef ',
      SIGNED_PREFIXES: ' /video/ ',
      R2_TIER_ADMIT: ' all ',
      R2_STORAGE_PRICE_PER_GB_MONTH: '0.02',
      R2_WRITE_PRICE_PER_MILLION: ' 5 ',
      R2_READ_PRICE_PER_MILLION: '0.4',
      R2_WRITES_PER_HOUR: ' 600 ',
    });
    expect(config).toEqual({
      originKind: 's3',
      originUrl: new URL('http://127.0.0.1:4569'),
      originEndpoints: [new URL('http://127.0.0.1:4569')],
      s3: {
        bucket: 'media',
        hostBuckets: new Map(),
        region: 'eu-west-1',
        accessKeyId: 'AKID2',
        secretAccessKey: 'SECRET2',
        addressing: 'virtual',
      },
      cacheKeyQuery: [],
      originTimeoutMs: 2500,
      originHedge: false,
      originIdleTimeoutMs: 750,
      originBudget: { concurrency: 40, busyWaitMs: 500 },
      defaultTtl: 0,
      negativeTtl: 60,
      staleWhileRevalidate: 60,
      staleIfError: 86400,
      shieldToken: 'token',
      purgeToken: 'purge-secret',
      eventsToken: 'events-secret',
      slicing: {
        sliceSize: 16 * 1024 * 1024,
        threshold: 32 * 1024 * 1024,
        readahead: 3,
        parallel: 12,
        subrequests: 50,
        wholeCopyMax: 128 * 1024 * 1024,
      },
      prefetchSegments: 2,
      memory: { budget: 16 * 1024 * 1024, maxObject: 256 * 1024 },
      fills: {
        abandonedFillMax: 2 * 1024 * 1024,
        abandonedIsolateMax: 6 * 1024 * 1024,
        unknownLengthMax: 64 * 1024 * 1024,
        unknownLengthMs: 30_000,
      },
      site: {
        indexDocument: 'index.html',
        folderRedirect: 301,
        notFoundDocuments: [{ prefix: '/', key: '404.html' }],
        errorDocument: undefined,
        contentTypeFromExtension: false,
        corsAllowOrigins: ['https://app.example'],
      },
      observability: { statsToken: 'stats-secret', flushMs: 0, logSample: 0.25, egressPricePerTB: 4.5 },
      rules: { list: [{ name: 'assets', match: { paths: ['/assets/*'] }, freshness: { ttl: 31_536_000 } }] },
      admission: {
        signingKeys: new Map([['k1', '0123456789abcdef0123456789abcdef']]),
        signedPrefixes: ['/video/'],
      },
      r2Tier: { admit: 'all', storagePerGbMonth: 0.02, writePerMillion: 5, readPerMillion: 0.4, writesPerHour: 600 },
    });
  });
});

describe('parseConfig for slicing', () => {
  const base = { S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's' };

  it("slices by 8 MiB from one slice up, six at a time, within Workers Paid's default of 10,000 subrequests, kept whole at the edge up to 64 MiB by default", () => {
    expect(parseConfig(base).slicing).toEqual({
      sliceSize: 8 * 1024 * 1024,
      threshold: 8 * 1024 * 1024,
      readahead: 6,
      parallel: 32,
      subrequests: 10_000,
      wholeCopyMax: 64 * 1024 * 1024,
    });
  });

  it("keeps whole copies up to WHOLE_COPY_MAX: 0 turns them off, beyond the Cache API's 512 MiB is refused", () => {
    expect(parseConfig({ ...base, WHOLE_COPY_MAX: '0' }).slicing.wholeCopyMax).toBe(0);
    expect(parseConfig({ ...base, WHOLE_COPY_MAX: '512MiB' }).slicing.wholeCopyMax).toBe(512 * 1024 * 1024);
    expect(() => parseConfig({ ...base, WHOLE_COPY_MAX: '513MiB' })).toThrow(/^WHOLE_COPY_MAX must be at most 512MiB/);
    expect(() => parseConfig({ ...base, WHOLE_COPY_MAX: 'all' })).toThrow(/^WHOLE_COPY_MAX/);
  });

  it('takes byte counts plain or with a binary unit', () => {
    expect(parseConfig({ ...base, SLICE_SIZE: '1048576' }).slicing.sliceSize).toBe(1024 * 1024);
    expect(parseConfig({ ...base, SLICE_SIZE: '2M' }).slicing.sliceSize).toBe(2 * 1024 * 1024);
    expect(parseConfig({ ...base, SLICE_SIZE: '64mib' }).slicing.sliceSize).toBe(64 * 1024 * 1024);
    expect(parseConfig({ ...base, SLICE_THRESHOLD: '1GiB' }).slicing.threshold).toBe(1024 * 1024 * 1024);
  });

  it('refuses a slice size that is not a power of two from 1 MiB to 64 MiB, naming the setting', () => {
    for (const value of ['512KiB', '3MiB', '128MiB', '0', 'big', '-1']) {
      expect(() => parseConfig({ ...base, SLICE_SIZE: value }), value).toThrow(/^SLICE_SIZE/);
    }
  });

  it('keeps read-ahead to eight slices and 64 MiB in flight: the default is cut to fit the slice size', () => {
    expect(parseConfig({ ...base, SLICE_READAHEAD: '8' }).slicing.readahead).toBe(8);
    expect(parseConfig({ ...base, SLICE_READAHEAD: '3', SLICE_SIZE: '16MiB' }).slicing.readahead).toBe(3);
    expect(parseConfig({ ...base, SLICE_SIZE: '16MiB' }).slicing.readahead).toBe(4);
    expect(parseConfig({ ...base, SLICE_SIZE: '64MiB' }).slicing.readahead).toBe(1);
  });

  it('refuses a read-ahead beyond its range, naming the range and where it comes from, rather than clamping it', () => {
    expect(configError({ ...base, SLICE_READAHEAD: '50' }).message).toBe(
      'SLICE_READAHEAD must be an integer from 1 to 8 (at most 8 slices and 64 MiB in flight, with SLICE_SIZE 8 MiB), got "50"',
    );
    expect(configError({ ...base, SLICE_READAHEAD: '8', SLICE_SIZE: '16MiB' }).message).toBe(
      'SLICE_READAHEAD must be an integer from 1 to 4 (at most 8 slices and 64 MiB in flight, with SLICE_SIZE 16 MiB), got "8"',
    );
    expect(configError({ ...base, SLICE_READAHEAD: '0' }).message).toMatch(
      /^SLICE_READAHEAD must be an integer from 1 to 8 /,
    );
  });

  it('keeps the edge to 64 slices in flight per download and isolate, and at least one', () => {
    expect(parseConfig({ ...base, SLICE_PARALLEL: '64' }).slicing.parallel).toBe(64);
    expect(parseConfig({ ...base, SLICE_PARALLEL: '1' }).slicing.parallel).toBe(1);
    // Slices read ahead through the caches hold no memory: the slice size does not bound it.
    expect(parseConfig({ ...base, SLICE_PARALLEL: '40', SLICE_SIZE: '64MiB' }).slicing.parallel).toBe(40);
  });

  it('refuses SLICE_PARALLEL beyond 1 to 64, naming the setting and its range, rather than clamping it', () => {
    for (const value of ['100', '65', '500', '0', '-3', 'many', '2.5']) {
      expect(configError({ ...base, SLICE_PARALLEL: value }).message, value).toBe(
        `SLICE_PARALLEL must be an integer from 1 to 64 (slices in flight per download and per isolate), got ${JSON.stringify(value)}`,
      );
    }
  });
});

describe('parseConfig for fills nobody waits for, and bodies without a length', () => {
  const base = { S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's' };
  const MiB = 1024 * 1024;

  it('lets a fill its clients left pull one slice more, four such at once, and takes a body without a length up to 512 MiB and two minutes', () => {
    expect(parseConfig(base).fills).toEqual({
      abandonedFillMax: 8 * MiB,
      abandonedIsolateMax: 32 * MiB,
      unknownLengthMax: 512 * MiB,
      unknownLengthMs: 120_000,
    });
  });

  it('follows the slice size by default, and ABANDONED_FILL_MAX when only it is given', () => {
    expect(parseConfig({ ...base, SLICE_SIZE: '1MiB' }).fills.abandonedFillMax).toBe(MiB);
    expect(parseConfig({ ...base, ABANDONED_FILL_MAX: '2MiB' }).fills.abandonedIsolateMax).toBe(8 * MiB);
  });

  it('takes 0: a fill its clients left stops at once, and the isolate lets none go on', () => {
    const fills = parseConfig({ ...base, ABANDONED_FILL_MAX: '0', ABANDONED_ISOLATE_MAX: '0' }).fills;
    expect([fills.abandonedFillMax, fills.abandonedIsolateMax]).toEqual([0, 0]);
  });

  it("refuses what the store could never hold (beyond the Cache API's 512 MiB), and a body or deadline of nothing, naming the setting", () => {
    expect(configError({ ...base, ABANDONED_FILL_MAX: '513MiB' }).message).toBe(
      "ABANDONED_FILL_MAX must be from 0 bytes to 512MiB (the Cache API's largest object), got 537919488 bytes",
    );
    expect(configError({ ...base, UNKNOWN_LENGTH_MAX: '1GiB' }).message).toMatch(/^UNKNOWN_LENGTH_MAX must be from 1/);
    expect(configError({ ...base, UNKNOWN_LENGTH_MAX: '0' }).message).toMatch(/^UNKNOWN_LENGTH_MAX/);
    expect(configError({ ...base, UNKNOWN_LENGTH_TIMEOUT_MS: '0' }).message).toMatch(/^UNKNOWN_LENGTH_TIMEOUT_MS/);
    expect(configError({ ...base, ABANDONED_ISOLATE_MAX: 'lots' }).message).toMatch(/^ABANDONED_ISOLATE_MAX/);
  });
});

describe('parseConfig for the edge memory layer', () => {
  const base = { S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's' };

  it('keeps 32 MiB of objects up to 1 MiB each by default', () => {
    expect(parseConfig(base).memory).toEqual({ budget: 32 * 1024 * 1024, maxObject: 1024 * 1024 });
  });

  it('is off at 0, and then holds no object either', () => {
    expect(parseConfig({ ...base, MEMORY_CACHE_SIZE: '0' }).memory).toEqual({ budget: 0, maxObject: 0 });
  });

  it('defaults the largest object to the budget when the budget is below 1 MiB', () => {
    expect(parseConfig({ ...base, MEMORY_CACHE_SIZE: '512KiB' }).memory).toEqual({
      budget: 512 * 1024,
      maxObject: 512 * 1024,
    });
  });

  it('refuses a budget over 64 MiB (half an isolate) and an object limit over the budget, naming the setting', () => {
    expect(() => parseConfig({ ...base, MEMORY_CACHE_SIZE: '65MiB' })).toThrow(
      /^MEMORY_CACHE_SIZE must be at most 64MiB/,
    );
    expect(() => parseConfig({ ...base, MEMORY_CACHE_SIZE: 'lots' })).toThrow(/^MEMORY_CACHE_SIZE/);
    expect(() => parseConfig({ ...base, MEMORY_CACHE_SIZE: '1MiB', MEMORY_OBJECT_MAX: '2MiB' })).toThrow(
      /^MEMORY_OBJECT_MAX must not exceed MEMORY_CACHE_SIZE/,
    );
  });
});

describe('parseConfig for an S3 origin', () => {
  it('requires each S3 credential setting, naming the one missing', () => {
    for (const name of ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const) {
      const error = configError({ ...s3Minimal, [name]: undefined });
      expect(error.message, name).toBe(`${name} is required when ORIGIN_KIND=s3`);
      expect(configError({ ...s3Minimal, [name]: '   ' }).message, name).toBe(
        `${name} is required when ORIGIN_KIND=s3`,
      );
    }
  });

  it('fails for an empty configuration, naming every missing setting in one error', () => {
    expect(configError({}).problems).toEqual([
      'S3_BUCKET is required when ORIGIN_KIND=s3',
      'S3_ACCESS_KEY_ID is required when ORIGIN_KIND=s3',
      'S3_SECRET_ACCESS_KEY is required when ORIGIN_KIND=s3',
    ]);
    expect(configError({}).message).toBe(
      'S3_BUCKET is required when ORIGIN_KIND=s3; S3_ACCESS_KEY_ID is required when ORIGIN_KIND=s3; S3_SECRET_ACCESS_KEY is required when ORIGIN_KIND=s3',
    );
  });

  it('does not ask for S3_BUCKET beside a HOST_BUCKETS it cannot read (which may be meant to name every host)', () => {
    expect(configError({ ...s3Minimal, S3_BUCKET: undefined, HOST_BUCKETS: 'a.example' }).problems).toEqual([
      'HOST_BUCKETS: expected host=bucket pairs separated by commas, got "a.example"',
    ]);
  });

  it('refuses an unknown addressing style, naming the setting and the choices', () => {
    expect(configError({ ...s3Minimal, S3_ADDRESSING: 'vhost' }).message).toBe(
      'S3_ADDRESSING must be one of path|virtual, got "vhost"',
    );
  });
});

describe('parseConfig for a plain HTTP origin', () => {
  it('requires ORIGIN_URL', () => {
    expect(configError({ ORIGIN_KIND: 'http' }).message).toBe('ORIGIN_URL is required when ORIGIN_KIND=http');
  });

  it('needs no S3 settings and has none', () => {
    const config = parseConfig(httpMinimal);
    expect(config.originKind).toBe('http');
    expect(config.originUrl.href).toBe('https://www.example.com/');
    expect(config.s3).toBeUndefined();
  });

  it('ignores S3 settings, even invalid ones', () => {
    expect(parseConfig({ ...httpMinimal, ...s3Minimal, S3_ADDRESSING: 'nonsense' }).s3).toBeUndefined();
  });

  it('stores nothing without explicit freshness by default (DEFAULT_TTL 0)', () => {
    expect(parseConfig(httpMinimal).defaultTtl).toBe(0);
    expect(parseConfig({ ...httpMinimal, DEFAULT_TTL: '60' }).defaultTtl).toBe(60);
  });
});

describe('parseConfig refusing invalid values', () => {
  it('refuses an unknown origin kind, naming the setting and the choices', () => {
    expect(configError({ ...s3Minimal, ORIGIN_KIND: 'ftp' }).message).toBe(
      'ORIGIN_KIND must be one of s3|http, got "ftp"',
    );
    expect(configError({ ...s3Minimal, ORIGIN_KIND: 'S3' }).message).toMatch(/^ORIGIN_KIND must be one of/);
  });

  it('refuses an ORIGIN_URL that is not an absolute URL, without echoing it (it may carry credentials)', () => {
    const error = configError({ ...httpMinimal, ORIGIN_URL: '//user:p4ssw0rd@origin.example/' });
    expect(error.message).toMatch(/^ORIGIN_URL must be an absolute http\(s\) URL/);
    expect(error.message).not.toContain('p4ssw0rd');
  });

  it('refuses an ORIGIN_URL that is not http or https', () => {
    expect(configError({ ...httpMinimal, ORIGIN_URL: 'ftp://files.example.com' }).message).toBe(
      'ORIGIN_URL must use http or https, got ftp:',
    );
  });

  it('refuses a DEFAULT_TTL that is not a non-negative integer', () => {
    for (const value of ['-1', '1.5', 'abc', '9007199254740993', 'Infinity']) {
      expect(configError({ ...s3Minimal, DEFAULT_TTL: value }).message, value).toBe(
        `DEFAULT_TTL must be an integer >= 0, got ${JSON.stringify(value)}`,
      );
    }
  });

  it('refuses an ORIGIN_CONCURRENCY of 0 or past any origin, and an ORIGIN_BUSY_WAIT_MS past a minute', () => {
    expect(configError({ ...s3Minimal, ORIGIN_CONCURRENCY: '0' }).message).toBe(
      'ORIGIN_CONCURRENCY must be an integer from 1 to 100000, got "0"',
    );
    expect(configError({ ...s3Minimal, ORIGIN_CONCURRENCY: '1e3' }).message).toMatch(/^ORIGIN_CONCURRENCY must be/);
    expect(configError({ ...s3Minimal, ORIGIN_BUSY_WAIT_MS: '60001' }).message).toBe(
      'ORIGIN_BUSY_WAIT_MS must be an integer from 0 to 60000 (a client waits no longer), got "60001"',
    );
    expect(parseConfig({ ...s3Minimal, ORIGIN_BUSY_WAIT_MS: '0' }).originBudget.busyWaitMs).toBe(0);
  });

  it('reads ORIGIN_HEDGE as on or off, and refuses anything else', () => {
    expect(parseConfig({ ...s3Minimal, ORIGIN_HEDGE: 'on' }).originHedge).toBe(true);
    expect(parseConfig({ ...s3Minimal, ORIGIN_HEDGE: ' off ' }).originHedge).toBe(false);
    expect(parseConfig({ ...s3Minimal, ORIGIN_HEDGE: '' }).originHedge).toBe(true);
    expect(configError({ ...s3Minimal, ORIGIN_HEDGE: 'yes' }).message).toBe(
      'ORIGIN_HEDGE must be one of on|off, got "yes"',
    );
  });

  it('reads PREFETCH_SEGMENTS as 0 (off) to 10, 3 when unset, and refuses anything else', () => {
    expect(parseConfig(s3Minimal).prefetchSegments).toBe(3);
    expect(parseConfig({ ...s3Minimal, PREFETCH_SEGMENTS: '0' }).prefetchSegments).toBe(0);
    expect(parseConfig({ ...s3Minimal, PREFETCH_SEGMENTS: '10' }).prefetchSegments).toBe(10);
    for (const bad of ['11', '-1', 'off', '2.5'])
      expect(configError({ ...s3Minimal, PREFETCH_SEGMENTS: bad }).message).toBe(
        `PREFETCH_SEGMENTS must be an integer from 0 to 10, got "${bad}"`,
      );
  });

  it('refuses an ORIGIN_TIMEOUT_MS below one millisecond', () => {
    expect(configError({ ...s3Minimal, ORIGIN_TIMEOUT_MS: '0' }).message).toBe(
      'ORIGIN_TIMEOUT_MS must be an integer >= 1, got "0"',
    );
    expect(configError({ ...s3Minimal, ORIGIN_TIMEOUT_MS: 'soon' }).message).toMatch(
      /^ORIGIN_TIMEOUT_MS must be an integer >= 1/,
    );
  });

  it('never puts a secret in an error message', () => {
    const secrets = { ...s3Minimal, SHIELD_TOKEN: 'SHIELD-TOKEN-VALUE' };
    const broken: RawConfig[] = [
      { ...secrets, DEFAULT_TTL: 'x' },
      { ...secrets, ORIGIN_TIMEOUT_MS: '-5' },
      { ...secrets, S3_ADDRESSING: 'x' },
      { ...secrets, ORIGIN_URL: 'not a url' },
      { ...secrets, S3_BUCKET: undefined },
    ];
    for (const raw of broken) {
      const { message } = configError(raw);
      expect(message).not.toContain('SECRET-KEY-VALUE');
      expect(message).not.toContain('SHIELD-TOKEN-VALUE');
    }
  });

  it('throws a ConfigError, an Error named ConfigError', () => {
    const error = configError({});
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ConfigError');
  });
});

describe('parseConfig reporting every problem at once', () => {
  it('names each setting that cannot work, in one ConfigError, in the order of the contract', () => {
    const error = configError({
      S3_ADDRESSING: 'vhost',
      SLICE_PARALLEL: '100',
      DEFAULT_TTL: 'x',
      S3_ACCESS_KEY_ID: 'AKID',
      LOG_SAMPLE: '2',
      INDEX_DOCUMENT: 'a/b.html',
    });
    expect(error.problems).toEqual([
      'S3_BUCKET is required when ORIGIN_KIND=s3',
      'S3_SECRET_ACCESS_KEY is required when ORIGIN_KIND=s3',
      'S3_ADDRESSING must be one of path|virtual, got "vhost"',
      'DEFAULT_TTL must be an integer >= 0, got "x"',
      'SLICE_PARALLEL must be an integer from 1 to 64 (slices in flight per download and per isolate), got "100"',
      'INDEX_DOCUMENT must be a name without "/", got "a/b.html"',
      'LOG_SAMPLE must be a number from 0 to 1, got "2"',
    ]);
  });

  it('with an unknown ORIGIN_KIND, names it and still checks every value given, requiring none the kind would', () => {
    expect(configError({ ORIGIN_KIND: 'S3', S3_ADDRESSING: 'vhost', SLICE_SIZE: '3MiB' }).problems).toEqual([
      'ORIGIN_KIND must be one of s3|http, got "S3"',
      'S3_ADDRESSING must be one of path|virtual, got "vhost"',
      'SLICE_SIZE must be a power of two from 1 MiB to 64 MiB, got 3145728 bytes',
    ]);
  });

  // Each broken setting alone, then any set of them together: the error names exactly that set.
  const broken: Partial<Record<ConfigName, string>> = {
    ORIGIN_URL: 'ftp://x.example',
    S3_ADDRESSING: 'vhost',
    ORIGIN_TIMEOUT_MS: '0',
    ORIGIN_IDLE_TIMEOUT_MS: 'soon',
    DEFAULT_TTL: '-1',
    NEGATIVE_TTL: '1.5',
    STALE_WHILE_REVALIDATE: 'x',
    STALE_IF_ERROR: 'x',
    SLICE_SIZE: '3MiB',
    SLICE_THRESHOLD: 'big',
    SLICE_READAHEAD: '9',
    SLICE_PARALLEL: '100',
    SUBREQUEST_LIMIT: '5',
    WHOLE_COPY_MAX: '1GiB',
    HOST_BUCKETS: 'nonsense',
    MEMORY_CACHE_SIZE: '65MiB',
    MEMORY_OBJECT_MAX: 'lots',
    ABANDONED_FILL_MAX: '1GiB',
    ABANDONED_ISOLATE_MAX: 'lots',
    UNKNOWN_LENGTH_MAX: '0',
    UNKNOWN_LENGTH_TIMEOUT_MS: 'soon',
    INDEX_DOCUMENT: 'a/b',
    NOT_FOUND_DOCUMENT: '../x',
    CONTENT_TYPE_FROM_EXTENSION: 'yes',
    CORS_ALLOW_ORIGINS: 'not an origin',
    STATS_FLUSH_MS: '-5',
    LOG_SAMPLE: '2',
    EGRESS_PRICE_PER_TB: '$7',
  };
  const names = Object.keys(broken) as ConfigName[];
  const named = (error: ConfigError): string[] =>
    error.problems.map((problem) => /^[A-Z0-9_]+/.exec(problem)?.[0] ?? problem).sort();

  it.each(names)('refuses %s alone, naming it', (name) => {
    expect(named(configError({ ...s3Minimal, [name]: broken[name] }))).toEqual([name]);
  });

  it('names exactly the settings broken, whichever they are', () => {
    fc.assert(
      fc.property(fc.subarray(names, { minLength: 1 }), (chosen) => {
        const raw: RawConfig = { ...s3Minimal, ...Object.fromEntries(chosen.map((name) => [name, broken[name]])) };
        expect(named(configError(raw))).toEqual([...chosen].sort());
      }),
    );
  });
});

describe('configFrom', () => {
  it('parses a bindings object once and reuses the result', () => {
    const env: RawConfig = { ...s3Minimal };
    expect(configFrom(env)).toBe(configFrom(env));
  });

  it('parses each bindings object on its own', () => {
    expect(configFrom({ ...s3Minimal, DEFAULT_TTL: '5' }).defaultTtl).toBe(5);
    expect(configFrom({ ...s3Minimal, DEFAULT_TTL: '6' }).defaultTtl).toBe(6);
  });

  it('keeps failing for a broken configuration rather than remembering a result', () => {
    const env: RawConfig = {};
    expect(() => configFrom(env)).toThrow(ConfigError);
    expect(() => configFrom(env)).toThrow(ConfigError);
  });
});

describe('secret settings', () => {
  it('counts the credentials, the five tokens and the signing keys as secrets, never to be printed', () => {
    expect([...SECRET_CONFIG_NAMES].sort()).toEqual([
      'CF_API_TOKEN',
      'EVENTS_TOKEN',
      'PURGE_TOKEN',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'SHIELD_TOKEN',
      'SIGNING_KEYS',
      'STATS_TOKEN',
    ]);
  });
});

describe('observability settings', () => {
  const base = { ORIGIN_KIND: 'http', ORIGIN_URL: 'http://127.0.0.1:8080' } as const;

  it("defaults: stats off, a flush every 5 s, 1 % of requests logged, Storj's $7/TB", () => {
    expect(parseConfig(base).observability).toEqual({
      statsToken: undefined,
      flushMs: 5000,
      logSample: 0.01,
      egressPricePerTB: 7,
    });
  });

  it('refuses a LOG_SAMPLE outside [0, 1] and a price that is no number, naming the setting', () => {
    for (const LOG_SAMPLE of ['1.5', '-0.1', 'half', '1e-2'])
      expect(() => parseConfig({ ...base, LOG_SAMPLE })).toThrow(/LOG_SAMPLE/);
    for (const EGRESS_PRICE_PER_TB of ['$7', '7 USD', '-1'])
      expect(() => parseConfig({ ...base, EGRESS_PRICE_PER_TB })).toThrow(/EGRESS_PRICE_PER_TB/);
    expect(() => parseConfig({ ...base, STATS_FLUSH_MS: '-5' })).toThrow(/STATS_FLUSH_MS/);
  });

  it('reads LOG_SAMPLE 0 and 1 as they are', () => {
    expect(parseConfig({ ...base, LOG_SAMPLE: '0' }).observability.logSample).toBe(0);
    expect(parseConfig({ ...base, LOG_SAMPLE: '1' }).observability.logSample).toBe(1);
  });
});

describe('HEALTH_KEY', () => {
  it('is unset by default, and names one object key as given (a leading "/" dropped, trimmed)', () => {
    expect(parseConfig(s3Minimal).healthKey).toBeUndefined();
    expect(parseConfig({ ...s3Minimal, HEALTH_KEY: ' /status/ok.txt ' }).healthKey).toBe('status/ok.txt');
    expect(parseConfig({ ...httpMinimal, HEALTH_KEY: 'healthz' }).healthKey).toBe('healthz');
  });

  it('is refused, by name, when it names no object: only slashes would be the bucket itself, and ".." climbs', () => {
    for (const value of ['/', '//', '../x', 'a/../../b']) {
      expect(configError({ ...s3Minimal, HEALTH_KEY: value }).message, value).toMatch(
        /^HEALTH_KEY must name one object key: /,
      );
    }
    expect(parseConfig({ ...s3Minimal, HEALTH_KEY: '  ' }).healthKey).toBeUndefined();
  });
});

describe('the platform purge settings (CF_API_TOKEN, CF_ZONE_ID, CF_API_BASE)', () => {
  const zone = '0123456789abcdef0123456789abcdef';

  it('are off without both, and read with both, against Cloudflare’s API by default', () => {
    expect(parseConfig(httpMinimal).zonePurge).toBeUndefined();
    expect(parseConfig({ ...httpMinimal, CF_API_TOKEN: ' token ', CF_ZONE_ID: zone }).zonePurge).toEqual({
      apiToken: 'token',
      zoneId: zone,
      apiBase: 'https://api.cloudflare.com/client/v4',
    });
  });

  it('refuse one without the other, naming both', () => {
    for (const raw of [{ CF_API_TOKEN: 'token' }, { CF_ZONE_ID: zone }]) {
      const error = configError({ ...httpMinimal, ...raw });
      expect(error.message).toMatch(/CF_API_TOKEN and CF_ZONE_ID go together/);
    }
  });

  it('refuse a zone id that is not one, and never echo the token', () => {
    const error = configError({ ...httpMinimal, CF_API_TOKEN: 'the-secret-value', CF_ZONE_ID: 'zone/../x' });
    expect(error.message).toMatch(/CF_ZONE_ID must be the zone id/);
    expect(error.message).not.toContain('the-secret-value');
  });

  it('take CF_API_BASE over https, or http on loopback only', () => {
    const base = (value: string) =>
      parseConfig({ ...httpMinimal, CF_API_TOKEN: 't', CF_ZONE_ID: zone, CF_API_BASE: value }).zonePurge?.apiBase;
    expect(base('https://api.example/client/v4/')).toBe('https://api.example/client/v4');
    expect(base('http://127.0.0.1:8999/client/v4')).toBe('http://127.0.0.1:8999/client/v4');
    expect(base('http://localhost:8999/client/v4')).toBe('http://localhost:8999/client/v4');
    for (const bad of ['http://api.example/client/v4', 'ftp://127.0.0.1/', 'not a url'])
      expect(configError({ ...httpMinimal, CF_API_TOKEN: 't', CF_ZONE_ID: zone, CF_API_BASE: bad }).message).toMatch(
        /CF_API_BASE must/,
      );
  });
});
