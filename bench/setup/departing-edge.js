// A harness's edge: the real one (worker/index.ts), except that a request carrying `x-test-client-leaves-on: <url>`
// reaches it with a signal that aborts once a GET of that loopback URL is answered (departure-switch.ts), as the runtime
// tells a worker that its client went away (request.signal, the enable_request_signal flag). Deployed, a client that
// leaves before its answer's head is told so too; locally, workerd hears that a client closed its connection only once it
// writes to it, so a client that leaves while its answer is held until whole (no head yet) goes unheard: this stands in
// for the runtime there. The moment comes from an answer, not a timer: workerd runs timers only once no I/O is ready, and
// a tier filling at full speed keeps I/O ready. Nothing else changes, and the header goes no further.
//
// JavaScript, not TypeScript, for the reason test/integration/unreachable-shield.js gives: it imports the edge's entry,
// which needs the Workers types. esbuild bundles it as any entry.
import edge from '../../worker/index.ts';

const LEAVES_HEADER = 'x-test-client-leaves-on';
const LOOPBACK = /^http:\/\/127\.0\.0\.1:\d+\//;

export default {
  fetch(request, env, ctx) {
    const switchUrl = request.headers.get(LEAVES_HEADER);
    if (switchUrl === null || !LOOPBACK.test(switchUrl)) return edge.fetch(request, env, ctx);
    const headers = new Headers(request.headers);
    headers.delete(LEAVES_HEADER);
    const leaving = new AbortController();
    const leave = () => {
      leaving.abort(new Error('the client went away'));
      // When the edge heard it (a harness reads the runtime's output: TOLD_LINE in departure-switch.ts).
      console.log('tiercache-harness: the edge was told its client left');
    };
    ctx.waitUntil(fetch(switchUrl).then(leave, leave));
    return edge.fetch(new Request(request, { headers, signal: leaving.signal }), env, ctx);
  },
};
