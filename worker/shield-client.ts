// The edge's next hop: the shield, over the service binding. The edge sends only what the
// shield needs (method, canonical path, query for HTTP origins, the internal credential):
// nothing the client sent is copied by default.

import type { Config } from '../shared/config.ts';
import { BadGateway } from '../shared/http-error.ts';
import { CREDENTIAL_HEADER, SHIELD_ORIGIN } from '../shared/internal.ts';
import type { RequestTarget } from '../shared/request-target.ts';

export interface ShieldRequest {
  method: string;
  target: RequestTarget;
  headers?: Headers;
  body?: ReadableStream | null;
}

export async function askShield(shield: Fetcher, config: Config, request: ShieldRequest): Promise<Response> {
  const headers = new Headers(request.headers);
  if (config.shieldToken !== undefined) headers.set(CREDENTIAL_HEADER, config.shieldToken);
  const init: RequestInit = { method: request.method, headers, redirect: 'manual' };
  if (request.body) init.body = request.body;
  try {
    return await shield.fetch(new Request(`${SHIELD_ORIGIN}${request.target.path}${request.target.query}`, init));
  } catch {
    throw new BadGateway('the shield tier could not be reached');
  }
}
