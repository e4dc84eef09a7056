// What `npm start` without ORIGIN_URL sets for its embedded origin (s3rver): the origin's URL, its one
// bucket, path addressing, and its account unless the user gives one.

import { ORIGIN_KINDS, type RawConfig, S3_ADDRESSINGS } from '../shared/config/config.ts';
import { ConfigError } from '../shared/http/errors.ts';

export interface EmbeddedOrigin {
  url: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * Why the embedded origin cannot stand in for the user's, or undefined: ORIGIN_KIND=http names a site to front, and
 * an S3 server in its place would serve the sample site where the user expects theirs (refused, not set aside).
 */
export function embeddedOriginRefusal(config: RawConfig): string | undefined {
  if (config.ORIGIN_KIND !== 'http') return undefined;
  return 'ORIGIN_KIND=http needs ORIGIN_URL, the site to front (without ORIGIN_URL, npm start runs an embedded S3 origin: unset ORIGIN_KIND for it)';
}

/**
 * Points `config` at the embedded origin; answers a note for each setting of the user's that it sets aside or that
 * changes what the origin answers.
 */
export function useEmbeddedOrigin(config: RawConfig, origin: EmbeddedOrigin): string[] {
  const refusal = embeddedOriginRefusal(config);
  if (refusal !== undefined) throw new ConfigError(refusal);
  const notes: string[] = [];
  // A value the user gave is looked at before it is set aside: a misspelt ORIGIN_KIND or
  // S3_ADDRESSING is kept, so that parseConfig names it as a deployment would, instead of being
  // replaced without a word; a valid one that cannot apply here is replaced with a note.
  const dictate = (
    name: 'ORIGIN_KIND' | 'S3_BUCKET' | 'S3_ADDRESSING',
    value: string,
    choices?: readonly string[],
  ): void => {
    const given = config[name];
    if (given !== undefined && given !== value) {
      if (choices !== undefined && !choices.includes(given)) return; // not a value at all: parseConfig refuses it, by name
      notes.push(`${name} ignored: the embedded origin needs ${name}=${value} (set ORIGIN_URL to use another origin)`);
    }
    config[name] = value;
  };
  dictate('ORIGIN_KIND', 's3', ORIGIN_KINDS);
  dictate('S3_BUCKET', origin.bucket);
  // s3rver checks a virtual-hosted request's signature over /bucket/key instead of /key,
  // so it would refuse the shield's correct signatures; path-style it verifies properly.
  dictate('S3_ADDRESSING', 'path', S3_ADDRESSINGS);
  // Credentials the user gives are kept: the shield signs with them and the embedded origin refuses
  // them as S3 would, which is how wrong credentials are tried locally (`S3_SECRET_ACCESS_KEY=wrong npm start`).
  for (const [name, own] of [
    ['S3_ACCESS_KEY_ID', origin.accessKeyId],
    ['S3_SECRET_ACCESS_KEY', origin.secretAccessKey],
  ] as const) {
    if (config[name] === undefined) config[name] = own;
    else if (config[name] !== own)
      notes.push(
        `${name} set: the shield signs with it, and the embedded origin, whose account is another, refuses it as S3 would (unset it for the sample site)`,
      );
  }
  config.ORIGIN_URL = origin.url;
  return notes;
}
