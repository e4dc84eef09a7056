// The edge's answer to a purge, read and printed (cli/purge-answer.ts): the bound as the edge
// writes it, and only what the purge named.

import { describe, expect, it } from 'vitest';
import { durationMs, parsePurgeAnswer, renderPurgeAnswer } from '../../cli/purge-answer.ts';

const AT = Date.parse('2026-01-30T10:15:02Z');

describe('the purge answer', () => {
  it('reads the bound as the edge writes it', () => {
    expect([durationMs('65s'), durationMs('500ms'), durationMs('2m'), durationMs('1.5h'), durationMs('soon')]).toEqual([
      65_000,
      500,
      120_000,
      5_400_000,
      undefined,
    ]);
  });

  it('prints only the lists that name something, and a bound it cannot read as it came', () => {
    const text = renderPurgeAnswer({
      purged: { urls: [], prefixes: [], tags: ['blog'], everything: false },
      at: AT,
      reachesEveryLocationWithin: 'a minute',
    });
    expect(text).toBe(
      ['purge accepted at 2026-01-30 10:15:02Z', '  tags:       blog', 'reaches every location within a minute'].join(
        '\n',
      ),
    );
  });

  it('refuses an answer that is not a purge answer, saying what it expected', () => {
    expect(() => parsePurgeAnswer('{"ok":true}', 'https://cdn.example/__tiercache/purge')).toThrow(
      'https://cdn.example/__tiercache/purge answered JSON that is not a purge\'s answer ({purged, at, reachesEveryLocationWithin}): "{\\"ok\\":true}"',
    );
    expect(() => parsePurgeAnswer('<html>', 'x')).toThrow(
      'x answered 200 with something that is not JSON (is it a tiercache edge?): "<html>"',
    );
    const answer = {
      purged: { urls: ['/a'], prefixes: [], tags: [], everything: false },
      at: AT,
      reachesEveryLocationWithin: '65s',
    };
    expect(parsePurgeAnswer(JSON.stringify(answer), 'x')).toEqual(answer);
  });
});
