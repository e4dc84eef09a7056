// Test fixture standing in for the edge: the real one (worker/index.ts, as the local stack runs it: local/local-edge.ts,
// which moves with the test clock), whose purge list (the PURGES namespace) cannot be read or written once a test says
// so, as in a KV outage: every list, get, put and delete rejects. A test turns it on through the edge's own socket,
// which reaches the same isolate, at this path; with a second edge (WorkersOptions.secondEdge), each edge's isolate is
// switched on its own.
//
// JavaScript, not TypeScript, for the reason unreachable-shield.js gives: it imports the edge's entry, which needs the
// Workers types. esbuild bundles it as any entry.
import edge from '../../local/local-edge.ts';

const UNREADABLE_PATH = '/__test/purges-unreadable';

let unreadable = false;
/** The bindings with PURGES wrapped, made once: the edge parses its configuration once per bindings object. */
let wrapped;

function unreadablePurges(kv) {
  const refuse = () => Promise.reject(new Error('KV request failed: 503 Service Unavailable'));
  return {
    list: (options) => (unreadable ? refuse() : kv.list(options)),
    get: (key) => (unreadable ? refuse() : kv.get(key)),
    put: (key, value, options) => (unreadable ? refuse() : kv.put(key, value, options)),
    delete: (key) => (unreadable ? refuse() : kv.delete(key)),
  };
}

export default {
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === UNREADABLE_PATH) {
      unreadable = true;
      return new Response('the purge list cannot be read from now on\n');
    }
    wrapped ??= { ...env, PURGES: unreadablePurges(env.PURGES) };
    return edge.fetch(request, wrapped, ctx);
  },
};
