import { describe, expect, it } from 'vitest';
import { BodyStalled } from '../../../shared/http/errors.ts';
import { fromNextHop, nextHopOptions } from '../../../shared/streams/from-next-hop.ts';
import { drainSource, faultyStream, patternBytes, streamOf } from '../../streams.ts';

const bytes = patternBytes;
const fast = { attempts: 3, backoffMs: 1 };

describe('fromNextHop', () => {
  it('marks a body with how to heal it, which any reader through bodySource then does', async () => {
    const object = bytes(40);
    const body = fromNextHop(faultyStream(object, 15, 'error'), {
      heal: { ...fast, reopen: async (offset) => streamOf(object.slice(offset)) },
    });
    expect(await drainSource(body, { length: 40 })).toEqual({ bytes: object, error: undefined });
  });

  it('and with its silence bound', async () => {
    const body = fromNextHop(faultyStream(bytes(40), 15, 'stall'), { idleMs: 20 });
    expect((await drainSource(body, { length: 40 })).error).toBeInstanceOf(BodyStalled);
  });

  it('hands back the body itself, unwrapped', () => {
    const body = streamOf(bytes(4));
    expect(fromNextHop(body, { idleMs: 20 })).toBe(body);
  });
});

describe('nextHopOptions', () => {
  it('is how the body was marked, and nothing for a body never marked', () => {
    const options = { idleMs: 20, heal: { ...fast, reopen: async () => streamOf(bytes(4)) } };
    const marked = fromNextHop(streamOf(bytes(4)), options);
    expect(nextHopOptions(marked)).toBe(options);
    expect(nextHopOptions(streamOf(bytes(4)))).toBeUndefined();
  });

  it('is the latest marking of a body marked twice', () => {
    const body = fromNextHop(streamOf(bytes(4)), { idleMs: 20 });
    fromNextHop(body, { idleMs: 50 });
    expect(nextHopOptions(body)).toEqual({ idleMs: 50 });
  });
});
