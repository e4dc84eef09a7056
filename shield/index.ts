import type { ShieldEnv } from './env.ts';

export default {
  async fetch(request: Request, env: ShieldEnv): Promise<Response> {
    return new Response(`stub shield for ${new URL(request.url).pathname} bucket=${env.S3_BUCKET}\n`);
  },
} satisfies ExportedHandler<ShieldEnv>;
