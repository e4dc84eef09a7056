// Test fixture standing in for the shield: the real one (shield/index.ts, as the local stack
// runs it: local/local-shield.ts, which moves with the test clock) until cut off, then every
// call of it fails as an unreachable shield would: the edge's fetch over its service binding
// rejects (worker/shield-client.ts: Disconnected 'shield-unreachable'). A test cuts it
// off and restores it through the shield's own socket, which reaches the same isolate, at
// these two paths (a worker's entry module may export its handler alone).
//
// JavaScript, not TypeScript: it imports the shield's entry, which needs the Workers types,
// and test/tsconfig.json checks test files against Node's. esbuild bundles it as any entry.
import shield from '../../local/local-shield.ts';

// The shield's script defines the stats store; a stand-in for it must too.
export { StatsStore } from '../../local/local-shield.ts';

const CUT_PATH = '/__test/cut-shield';
const RESTORE_PATH = '/__test/restore-shield';

let cut = false;

export default {
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === CUT_PATH || pathname === RESTORE_PATH) {
      cut = pathname === CUT_PATH;
      return new Response(cut ? 'cut\n' : 'restored\n');
    }
    if (cut) throw new Error('the shield is cut off (test fixture)');
    return shield.fetch(request, env, ctx);
  },
};
