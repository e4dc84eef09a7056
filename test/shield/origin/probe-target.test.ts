import { describe, expect, it } from 'vitest';
import { parseConfig, type RawConfig } from '../../../shared/config/config.ts';
import { DEFAULT_PROBE_KEY, probeFor } from '../../../shield/origin/probe-target.ts';
import { noteServed } from '../../../shield/origin/served-key.ts';

const s3: RawConfig = { S3_BUCKET: 'assets', S3_ACCESS_KEY_ID: 'AKID', S3_SECRET_ACCESS_KEY: 'SECRET' };

/** The probe as bucket, key and URL path: what the origin is asked for. */
function asked(raw: RawConfig): { bucket: string | undefined; key: string | undefined; path: string; source: string } {
  const probe = probeFor(parseConfig(raw));
  return { bucket: probe.config.s3?.bucket, key: probe.target.key, path: probe.target.path, source: probe.source };
}

// Module state: these run in order, nothing served before the first.
describe('probeFor: which object the health probe asks for', () => {
  it('before anything was served: HEALTH_KEY in S3_BUCKET, or else the default key, never the bucket itself', () => {
    expect(asked({ ...s3, HEALTH_KEY: '/status/ok file.txt' })).toEqual({
      bucket: 'assets',
      key: 'status/ok file.txt',
      path: '/status/ok%20file.txt',
      source: 'HEALTH_KEY',
    });
    expect(asked(s3)).toEqual({
      bucket: 'assets',
      key: DEFAULT_PROBE_KEY,
      path: `/${DEFAULT_PROBE_KEY}`,
      source: 'default',
    });
  });

  it('with HOST_BUCKETS and no S3_BUCKET: the first bucket HOST_BUCKETS names', () => {
    expect(
      asked({ ...s3, S3_BUCKET: undefined, HOST_BUCKETS: 'a.example=site-a,b.example=site-b', HEALTH_KEY: 'ok.txt' })
        .bucket,
    ).toBe('site-a');
  });

  it('a site: HEALTH_KEY as a path under ORIGIN_URL, or else its root', () => {
    const site: RawConfig = { ORIGIN_KIND: 'http', ORIGIN_URL: 'https://www.example.com/' };
    expect(asked({ ...site, HEALTH_KEY: 'healthz' })).toEqual({
      bucket: undefined,
      key: undefined,
      path: '/healthz',
      source: 'HEALTH_KEY',
    });
    expect(asked(site)).toEqual({ bucket: undefined, key: undefined, path: '/', source: 'default' });
  });

  it('once an object was served: that object in its own bucket, without its query; HEALTH_KEY still first', () => {
    const config = parseConfig({ ...s3, HOST_BUCKETS: 'b.example=site-b' });
    noteServed(
      { ...config, s3: config.s3 && { ...config.s3, bucket: 'site-b' } },
      { path: '/video/a.mp4', query: '?v=2', key: 'video/a.mp4' },
      206,
    );
    expect(asked({ ...s3, HOST_BUCKETS: 'b.example=site-b' })).toEqual({
      bucket: 'site-b',
      key: 'video/a.mp4',
      path: '/video/a.mp4',
      source: 'recent',
    });
    expect(asked({ ...s3, HEALTH_KEY: 'ok.txt' }).key).toBe('ok.txt');
  });

  it('an answer that is not the object (a 404, a 403, a 5xx) is not noted as served', () => {
    const config = parseConfig(s3);
    for (const status of [404, 403, 500, 301])
      noteServed(config, { path: '/missing.txt', query: '', key: 'missing.txt' }, status);
    expect(asked(s3).key).toBe('video/a.mp4');
  });
});
