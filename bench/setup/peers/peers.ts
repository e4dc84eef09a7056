// Peers for the benchmark: other caches run on the same workloads, in front of the same origin, read by a plain HTTP
// base URL without authentication (neither peer can sign S3 requests, SigV4: an unsigned path to the same objects).

// Each start*() answers peers on free loopback ports; stop() ends the process and removes its temporary directory,
// and so does this process's exit.
export type { Peer } from './daemon.ts';
// Varnish and nginx when installed (bench/setup/peers/install.sh): detectPeers() says which are, so a run without them
// can say so and go on.
export { detectPeers, type Peers } from './detect.ts';
// The naive single-tier workers (caches.default, a global Map) on tiercache's runtime need nothing installed.
export { startNaiveWorkers } from './naive.ts';
export { startNginx } from './nginx.ts';
export { startVarnish } from './varnish.ts';
