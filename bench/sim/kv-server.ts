// The modelled KV namespace (kv-model.ts) served to every workerd process of a topology: a Node handler each process
// reaches through a Miniflare service binding to a Node function, and the wrapped binding (Miniflare's
// `wrappedBindings`, workerd's `wrapped`) that stands in the worker's env as PURGES: a KVNamespace of get, getWithMetadata,
// put, delete and list whose every call is one request to the handler, naming the calling location and isolate.
//
// Values are text only: a put of bytes or a stream is refused rather than decoded (never a wrong byte). `cacheTtl` is
// accepted and ignored: the model's propagation delay already stands for what a location's cached read may miss.

import type { WorkerOptions } from 'miniflare';
import type { KvCaller, KvListOptions, KvModel, KvPutOptions } from './kv-model.ts';

/** The wrapper worker's name in each process (a wrapped binding names the worker whose module it runs). */
const KV_WRAPPER = 'sim-kv';

/** What a wrapped binding's call sends: the operation in the path, this body as JSON. */
interface KvCall {
  caller: KvCaller;
  key?: string;
  value?: string;
  options?: KvPutOptions & KvListOptions;
}

/** The model's operations over HTTP: `POST /get|put|delete|list` with a KvCall; JSON back; a refusal is a 400. */
export function kvService(model: KvModel, now: () => number): (request: Request) => Promise<Response> {
  return async (request) => {
    const operation = new URL(request.url).pathname.slice(1);
    try {
      const call = (await request.json()) as KvCall;
      const { caller } = call;
      if (typeof caller?.location !== 'string' || typeof caller.isolate !== 'string')
        throw new TypeError('expected a caller with a location and an isolate');
      switch (operation) {
        case 'get':
          return Response.json({ entry: model.get(caller, text(call.key, 'key'), now()) });
        case 'put':
          model.put(caller, text(call.key, 'key'), text(call.value, 'value'), call.options ?? {}, now());
          return Response.json({});
        case 'delete':
          model.delete(caller, text(call.key, 'key'), now());
          return Response.json({});
        case 'list':
          return Response.json(model.list(caller, call.options ?? {}, now()));
        default:
          return Response.json({ error: `no KV operation ${operation}` }, { status: 404 });
      }
    } catch (error) {
      return Response.json({ error: error instanceof Error ? error.message : String(error) }, { status: 400 });
    }
  };
}

function text(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`expected ${name} as a string, got ${typeof value}`);
  return value;
}

/** The worker whose module the PURGES wrapped binding runs, reaching `service` (kvService) in Node. */
export function kvWrapperWorker(service: (request: Request) => Promise<Response>): WorkerOptions {
  // A wrapped binding's worker names no compatibility date (Miniflare's README, wrappedBindings).
  return { name: KV_WRAPPER, modules: true, script: KV_WRAPPER_SCRIPT, serviceBindings: { KV_SERVICE: service } };
}

/** PURGES for one isolate: the wrapper, told where and who calls. */
export function kvBinding(caller: KvCaller): NonNullable<WorkerOptions['wrappedBindings']> {
  return { PURGES: { scriptName: KV_WRAPPER, bindings: { LOCATION: caller.location, ISOLATE: caller.isolate } } };
}

/** Runs in workerd, in the calling isolate: the KVNamespace subset over KV_SERVICE. */
const KV_WRAPPER_SCRIPT = `
function typed(value, options) {
  const type = typeof options === 'string' ? options : (options && options.type) || 'text';
  if (value === null) return null;
  if (type === 'text') return value;
  if (type === 'json') return JSON.parse(value);
  if (type === 'arrayBuffer') return new TextEncoder().encode(value).buffer;
  if (type === 'stream') return new Response(value).body;
  throw new TypeError('KV get: unknown type ' + type);
}
export default function (env) {
  const caller = { location: env.LOCATION, isolate: env.ISOLATE };
  async function call(operation, args) {
    const answer = await env.KV_SERVICE.fetch('http://kv.sim/' + operation, {
      method: 'POST',
      body: JSON.stringify({ caller, ...args }),
    });
    const body = await answer.json();
    if (!answer.ok) throw new Error('KV ' + operation + ' failed: ' + body.error);
    return body;
  }
  function single(key) {
    if (typeof key !== 'string') throw new TypeError('the modelled KV reads one key a call');
    return key;
  }
  return {
    async get(key, options) {
      const { entry } = await call('get', { key: single(key) });
      return typed(entry ? entry.value : null, options);
    },
    async getWithMetadata(key, options) {
      const { entry } = await call('get', { key: single(key) });
      return { value: typed(entry ? entry.value : null, options), metadata: entry ? entry.metadata : null, cacheStatus: null };
    },
    async put(key, value, options) {
      if (typeof value !== 'string') throw new TypeError('the modelled KV keeps text values only');
      const { expirationTtl, expiration, metadata } = options || {};
      await call('put', { key, value, options: { expirationTtl, expiration, metadata } });
    },
    async delete(key) {
      await call('delete', { key });
    },
    async list(options) {
      const { prefix, limit, cursor } = options || {};
      return call('list', { options: { prefix, limit, cursor } });
    },
  };
}
`;
