// Flags: node:util parseArgs, strict (an unknown flag or a stray word is a usage error, never ignored), every string
// flag collected as a list so that a single-valued flag given twice is refused, not the last one.

import { parseArgs } from 'node:util';
import { usageError } from './cli-failure.ts';

export type FlagSpec = Record<string, { type: 'string' | 'boolean' }>;

export interface Flags {
  strings: Record<string, string[]>;
  booleans: Record<string, boolean>;
}

export function parseFlags(argv: readonly string[], spec: FlagSpec, usage: string): Flags {
  const options = Object.fromEntries(Object.entries(spec).map(([name, { type }]) => [name, { type, multiple: true }]));
  let values: Record<string, (string | boolean)[] | undefined>;
  try {
    values = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as Record<
      string,
      (string | boolean)[] | undefined
    >;
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error), usage);
  }
  const flags: Flags = { strings: {}, booleans: {} };
  for (const [name, { type }] of Object.entries(spec)) {
    const given = values[name] ?? [];
    if (type === 'string') flags.strings[name] = given.filter((value) => typeof value === 'string');
    else flags.booleans[name] = given.includes(true);
  }
  return flags;
}

/** The one value of a flag that may be given once, or undefined. */
export function single(flags: Flags, name: string, usage: string): string | undefined {
  const given = flags.strings[name] ?? [];
  if (given.length > 1) throw usageError(`--${name} given ${given.length} times; give it once`, usage);
  return given[0];
}
