// The import rules that keep the rooms what their names say (docs/layout.md). Run by
// `npm run lint:imports`, part of `npm test`: a wrong import fails CI.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'pure-rooms-stay-pure',
      comment:
        'shared/http, request, hop, config, rules, slices, streams, store, stats, cost, tiers, admission, warm and playlists, the purge records, prefixes and bounds, the soft purge verdict, bucket events read, and what Workers Cache is told of purges, are pure rules and formats: they never reach the read path (shared/tier), the observers (shared/observe) or the KV store.',
      severity: 'error',
      from: {
        path: '^shared/((http|request|hop|config|rules|slices|streams|store|stats|cost|tiers|admission|warm|playlists)/|purge/(purge-(rules|prefix|bounds)|soft-purge|bucket-events|workers-cache-purge)\\.ts$)',
      },
      to: { path: '^shared/(tier/|observe/|purge/purge-(store|kv|snapshot))' },
    },
    {
      name: 'slice-reader-never-reaches-up',
      comment:
        "The slice reader (shared/tier/slice-reader/, its contract in README.md) is handed its ports and stands only on the read path's primitives below it: the port types (ports.ts), what discovery found (resolved.ts), the tier's cache (tier-cache.ts), collapsing (collapse.ts) and the fill (fill.ts). The rest of the read path (lookup, the fill of an entry, HEAD, a tier's report) calls it, so the reader never imports it, nor the observers or a tier: it stays one room that can be read, tested and changed on its own.",
      severity: 'error',
      from: { path: '^shared/tier/slice-reader/' },
      to: {
        path: '^(shared/(tier|observe)/|worker/|shield/)',
        pathNot: '^shared/tier/(slice-reader/[\\w-]+|ports|resolved|tier-cache|collapse|fill)\\.ts$',
      },
    },
    {
      name: 'shared-knows-no-tier',
      comment: 'shared/ is what both tiers run: it never imports the edge or the shield.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(worker|shield)/' },
    },
    {
      name: 'tiers-never-import-each-other',
      comment: 'The edge and the shield meet over the service binding only, in the terms of shared/hop/.',
      severity: 'error',
      from: { path: '^(worker|shield)/' },
      to: { path: '^(worker|shield)/', pathNot: '^$1/' },
    },
    {
      name: 'tiers-take-the-flows-from-openTier',
      comment:
        "The flows every tier has (a bypassed request, another method passed through, HEAD of an object; the read path's asks stacked in next-hop.ts) are assembled once, by shared/tier/tier.ts (openTier): worker/ and shield/ hand it their parts and adapters (a cache, a next hop, what a request names) and never call those flows themselves, so that a tier is written once and a third is one more adapter.",
      severity: 'error',
      from: { path: '^(worker|shield)/' },
      to: { path: '^shared/tier/(bypass|pass-through|object-head)\\.ts$' },
    },
    {
      name: 'product-never-imports-tooling',
      comment: 'What is deployed never imports the tests, the bench or the local stack.',
      severity: 'error',
      from: { path: '^(worker|shield|shared)/' },
      to: { path: '^(test|bench|local|conformance)/' },
    },
    {
      name: 'local-stack-never-imports-tests-or-bench',
      severity: 'error',
      from: { path: '^local/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'cli-imports-only-types-and-formats',
      comment:
        "cli/ talks to a deployment over HTTP only: of the rest it imports types (the stats.json shape, the purge request), the stats page's number formats (shared/stats/format.ts) and the tiers it shows (shared/stats/shown-tiers.ts, pure: npm run stats shows the same ones), the pure cost model (shared/cost/, for npm run cost), the list of tiers (shared/tiers/tiers.ts, so that npm run stats prints every tier the edge reports), the reserved paths it calls (shared/request/reserved-paths.ts), the purge body's limits (shared/purge/purge-rules.ts, pure: npm run purge sends --from's targets in requests the edge takes), a warm call's share and a playlist's folder (shared/warm/warm-pacing.ts, warm-scope.ts, pure: npm run warm sends its URLs in batches of what one call warms), the RULES check (shared/rules/rules-document.ts and the ConfigError it throws, shared/http/errors.ts: the deploy refuses a RULES the workers would), the Cache-Status reader (shared/http/cache-status.ts, pure: npm run verify reads each tier's member as the tiers write it) and the signer a site's backend uses too (shared/admission/signer.ts over signed-token.ts, for npm run sign), never code that runs a tier.",
      severity: 'error',
      from: { path: '^cli/' },
      to: {
        path: '^(worker|shield|shared|local|bench|test)/',
        pathNot:
          '^shared/(stats/(format|shown-tiers)|cost/[\\w-]+|tiers/tiers|request/reserved-paths|purge/purge-rules|rules/rules-document|http/(errors|cache-status)|admission/(signer|signed-token)|warm/warm-(pacing|scope))\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'nothing-imports-cli',
      comment:
        "cli/ is the operator's commands: the product, the local stack and the bench never import it (only test/cli/ does).",
      severity: 'error',
      from: { path: '^(worker|shield|shared|local|bench)/' },
      to: { path: '^cli/' },
    },
    {
      name: 'conformance-runs-the-stack-as-a-process',
      comment:
        'conformance/ runs `npm start` and the cache-tests suite as processes and judges their answers: of the rest it imports only bench/setup/free-port.ts, and nothing imports it (only test/conformance/ does).',
      severity: 'error',
      from: { path: '^conformance/' },
      to: { path: '^(worker|shield|shared|local|bench|cli|test)/', pathNot: '^bench/setup/free-port\\.ts$' },
    },
    {
      name: 'nothing-imports-conformance',
      severity: 'error',
      from: { path: '^(worker|shield|shared|local|bench|cli)/' },
      to: { path: '^conformance/' },
    },
    {
      name: 'no-circles',
      comment: 'A circle makes two modules one; say which one depends on the other.',
      severity: 'error',
      from: { path: '^(worker|shield|shared|local|bench|cli|conformance)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'test/tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
