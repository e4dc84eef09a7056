// Test fixture standing in for the edge: the real one (worker/index.ts), except that a request carrying
// `x-test-client-leaves-ms: N` reaches it with a signal that aborts N ms later, as the runtime tells a worker that its
// client went away (request.signal, the enable_request_signal flag). Deployed, a client that leaves before the answer's
// head cancels the request too; locally, workerd hears that a client closed its connection only once it writes to it,
// so a client that leaves while its answer is held until whole (no head yet) goes unheard: this stands in for the
// runtime there. Nothing else changes, and the header goes no further.
//
// JavaScript, not TypeScript, for the reason unreachable-shield.js gives: it imports the edge's entry, which needs the
// Workers types. esbuild bundles it as any entry.
import edge from '../../worker/index.ts';

const LEAVES_HEADER = 'x-test-client-leaves-ms';

export default {
  fetch(request, env, ctx) {
    const ms = Number(request.headers.get(LEAVES_HEADER) ?? Number.NaN);
    if (!Number.isFinite(ms)) return edge.fetch(request, env, ctx);
    const headers = new Headers(request.headers);
    headers.delete(LEAVES_HEADER);
    const leaving = new AbortController();
    setTimeout(() => leaving.abort(new Error('the client went away')), ms);
    return edge.fetch(new Request(request, { headers, signal: leaving.signal }), env, ctx);
  },
};
