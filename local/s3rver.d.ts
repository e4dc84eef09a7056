// Types for the parts of @20minutes/s3rver (CommonJS, untyped) that the local stack uses.
declare module '@20minutes/s3rver' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    /** Host suffix for virtual-hosted requests: `<bucket>.s3.<serviceEndpoint>`. */
    serviceEndpoint?: string;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string; configs?: (string | Uint8Array)[] }[];
  }

  /** A Koa application; `callback()` is its Node request listener. */
  export default class S3rver {
    constructor(options?: S3rverOptions);
    configureBuckets(): Promise<void>;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
