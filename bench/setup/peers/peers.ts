// Peers for the benchmark: other caches run on the same workloads, in front of the same origin.
// Varnish (malloc storage) and nginx (proxy_cache on whole objects, and the slice module), when
// installed (bench/setup/peers/install.sh); detectPeers() says which are, so a run without them
// can say so and go on. And the naive single-tier workers (caches.default, a global Map) on the
// same runtime as tiercache, which need nothing installed. Each start*() answers peers on free
// loopback ports; stop() ends the process and removes its temporary directory, and so does this
// process's exit.
//
// The origin is a plain HTTP base URL serving the objects without authentication: neither peer
// can sign S3 requests (SigV4), so the benchmark gives them an unsigned path to the same objects.

export { DEFAULT_TTL, type Peer } from './daemon.ts';
export { detectNginx, detectPeers, detectVarnish, type Installed, type Peers } from './detect.ts';
export { type NaivePeers, startNaiveWorkers } from './naive.ts';
export { type NginxOptions, type NginxPeers, startNginx } from './nginx.ts';
export { startVarnish, type VarnishOptions } from './varnish.ts';
