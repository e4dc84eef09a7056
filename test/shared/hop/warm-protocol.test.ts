import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ObjectWarmed, parseObjectWarmed, parseWarmAsk, warmAskBody } from '../../../shared/hop/warm-protocol.ts';

describe('the warm protocol between the edge and the shield', () => {
  it('carries a path from the edge, refusing anything else', () => {
    expect(parseWarmAsk(warmAskBody({ path: '/video/a.ts?v=1' }))).toEqual({ path: '/video/a.ts?v=1' });
    for (const text of [
      '',
      'null',
      '{}',
      '{"path": "video/a.ts"}',
      '{"path": 3}',
      `{"path": "/${'a'.repeat(20_000)}"}`,
    ])
      expect(parseWarmAsk(text), text.slice(0, 30)).toBeUndefined();
  });

  it('reads back every report the shield writes, and nothing that is not one', () => {
    const report: fc.Arbitrary<ObjectWarmed> = fc.record(
      {
        outcome: fc.constantFrom('warmed', 'cached', 'failed', 'skipped'),
        status: fc.nat({ max: 599 }),
        size: fc.nat(),
        bytes: fc.nat(),
        originBytes: fc.nat(),
        reason: fc.string({ maxLength: 300 }),
      },
      { requiredKeys: ['outcome', 'status', 'bytes', 'originBytes'] },
    );
    fc.assert(
      fc.property(report, (sent) => {
        expect(parseObjectWarmed(JSON.parse(JSON.stringify(sent)))).toEqual(sent);
      }),
    );
    for (const value of [
      null,
      'warmed',
      { outcome: 'hit', status: 200, bytes: 0, originBytes: 0 },
      { outcome: 'warmed', status: -1, bytes: 0, originBytes: 0 },
    ])
      expect(parseObjectWarmed(value)).toBeUndefined();
  });
});
