// The bench's tiercache targets (bench/setup/targets.ts): the edge on its own workerd socket, and
// the same edge through the local front (bench/setup/front-layer.ts), measured side by side in
// Workload V. Plumbing only: both answer a warm hit alike, and one stop ends both. No timing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SiteOrigin, startSiteOrigin } from '../../../bench/setup/site-origin.ts';
import { FRONT_NAME, startTargets, stopTargets, type Target } from '../../../bench/setup/targets.ts';
import { deterministicBytes } from '../../../local/assets.ts';

const OBJECT = { path: '/hit-20KB.bin', size: 20_000, seed: 0x4c17 };

/** The status, the edge's own Cache-Status member (the last: RFC 9211 §2) and the bytes of one GET. */
async function get(target: Target): Promise<{ status: number; edgeStatus: string | undefined; body: Buffer }> {
  const answer = await fetch(`${target.url}${OBJECT.path}`);
  return {
    status: answer.status,
    // The remaining freshness may tick over between two GETs.
    edgeStatus: answer.headers
      .get('cache-status')
      ?.split(',')
      .at(-1)
      ?.trim()
      .replace(/ttl=\d+/, 'ttl=N'),
    body: Buffer.from(await answer.arrayBuffer()),
  };
}

describe('tiercache on its own socket and through the local front', () => {
  let origin: SiteOrigin;
  let targets: Target[] = [];

  beforeAll(async () => {
    origin = await startSiteOrigin([OBJECT]);
    targets = await startTargets(['tiercache', FRONT_NAME], origin.url, {});
  });

  afterAll(async () => {
    await stopTargets(targets);
    await origin?.close();
  });

  it('starts the front only when it is named, right after the edge it stands before', () => {
    expect(targets.map((target) => target.name)).toEqual(['tiercache', FRONT_NAME]);
    expect(targets[0]?.url).not.toBe(targets[1]?.url);
  });

  it('answers a warm hit with the same status, Cache-Status and bytes on the edge’s own socket as through the front', async () => {
    const [own, fronted] = targets as [Target, Target];
    // The first GET fills the edge, the second puts the object in its memory; the front forwards
    // its own Host, which names another entry of the same edge, so each way is warmed.
    for (let i = 0; i < 2; i++) for (const target of [own, fronted]) await get(target);
    const direct = await get(own);
    const through = await get(fronted);
    const chunks: Uint8Array[] = [];
    for await (const chunk of deterministicBytes(OBJECT.seed, OBJECT.size)) chunks.push(chunk);
    const expected = Buffer.concat(chunks);
    expect(direct.status).toBe(200);
    expect(direct.body.equals(expected)).toBe(true);
    expect(direct.edgeStatus).toBe('tiercache-edge; hit; ttl=N');
    expect(through).toEqual(direct);
  });

  it('ends the edge and its front with one stop', async () => {
    await stopTargets(targets);
    for (const target of targets) await expect(fetch(`${target.url}${OBJECT.path}`)).rejects.toThrow();
  });
});
