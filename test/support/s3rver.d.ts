// s3rver ships no types; this is the part of its API the tests use.
declare module 's3rver' {
  import type { Server } from 'node:http';
  interface S3rverOptions {
    port?: number;
    address?: string;
    silent?: boolean;
    directory: string;
    configureBuckets?: Array<{ name: string }>;
  }
  interface KoaContext {
    method: string;
    url: string;
    path: string;
    status: number;
    body: unknown;
  }
  type Middleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void> | void;
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ port: number; address: string }>;
    close(): Promise<void>;
    middleware: Middleware[];
    httpServer: Server;
  }
}
