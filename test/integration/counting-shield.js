// Test fixture standing in for the shield: the real one (shield/index.ts), which also notes every request it is
// asked, so a test can show a refused request never reached it. A test reads the list, and empties it, through the
// shield's own socket, which reaches the same isolate, at these two paths.
//
// JavaScript, not TypeScript, for the reason unreachable-shield.js gives: it imports the shield's entry, which needs
// the Workers types. esbuild bundles it as any entry.
import shield from '../../shield/index.ts';

// The shield's script defines the stats store and the slices entrypoint; a stand-in for it must too.
export { ShieldSlices, StatsStore } from '../../shield/index.ts';

const HEARD_PATH = '/__test/shield-heard';
const FORGET_PATH = '/__test/shield-forget';

/** `METHOD path?query` of each request, in arrival order. */
const heard = [];

export default {
  fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === HEARD_PATH) return Response.json(heard);
    if (url.pathname === FORGET_PATH) {
      heard.length = 0;
      return new Response('forgotten\n');
    }
    heard.push(`${request.method} ${url.pathname}${url.search}`);
    return shield.fetch(request, env, ctx);
  },
};
