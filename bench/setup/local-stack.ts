// The local stack for benchmarks: the embedded S3 origin and both workers on free loopback ports, wired as
// `npm start` wires them.

import { randomUUID } from 'node:crypto';
import { type S3Origin, startS3Origin } from '../../local/origin.ts';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { CONFIG_NAMES, parseConfig, type RawConfig, type SlicingConfig } from '../../shared/config/config.ts';
import { keepSignals } from './signals.ts';

/** Settings a benchmark run may take from the environment; the rest is the embedded origin's. */
const TUNABLE_NAMES = [
  'SLICE_SIZE',
  'SLICE_THRESHOLD',
  'SLICE_READAHEAD',
  'SLICE_PARALLEL',
  'SUBREQUEST_LIMIT',
  'DEFAULT_TTL',
] as const;

export interface LocalStack {
  origin: S3Origin;
  stack: Stack;
  /** The slicing in effect, defaults filled in. */
  slicing: SlicingConfig;
}

/** Runs `body` against a fresh stack and stops it afterwards (temporary data removed), whatever happens, Ctrl-C too. */
export async function withLocalStack<T>(body: (local: LocalStack) => Promise<T>): Promise<T> {
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  // Miniflare would leave the origin's directory (a 1 GiB object, say) behind on Ctrl-C.
  const releaseSignals = keepSignals(() => void stopAll().finally(() => process.exit(130)));
  try {
    const origin = await startS3Origin();
    stops.push(() => origin.close());
    const config: RawConfig = {
      ...tunablesFromEnv(process.env),
      ORIGIN_KIND: 's3',
      ORIGIN_URL: origin.url,
      S3_BUCKET: origin.bucket,
      S3_ACCESS_KEY_ID: origin.accessKeyId,
      S3_SECRET_ACCESS_KEY: origin.secretAccessKey,
      S3_ADDRESSING: 'path',
      SHIELD_TOKEN: randomUUID(),
    };
    const { slicing } = parseConfig(config);
    const stack = await startWorkers({ config, port: 0 });
    stops.push(() => stack.dispose());
    return await body({ origin, stack, slicing });
  } finally {
    await stopAll();
    releaseSignals();
  }
}

function tunablesFromEnv(env: NodeJS.ProcessEnv): RawConfig {
  const config: RawConfig = {};
  for (const name of CONFIG_NAMES) {
    const value = env[name]?.trim();
    if (value && (TUNABLE_NAMES as readonly string[]).includes(name)) config[name] = value;
  }
  return config;
}

/** `promise`, or a rejection naming `what` once `ms` have passed (the work itself is not stopped). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
