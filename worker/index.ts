import type { EdgeEnv } from './env.ts';

export default {
  async fetch(request: Request, env: EdgeEnv): Promise<Response> {
    return env.SHIELD.fetch(request);
  },
} satisfies ExportedHandler<EdgeEnv>;
