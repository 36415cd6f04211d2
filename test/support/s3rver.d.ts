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
  /** An object as its filesystem store takes it. */
  interface StoredObject {
    bucket: string;
    key: string;
    content: Buffer | NodeJS.ReadableStream;
    metadata: Record<string, string>;
  }
  interface FilesystemStore {
    getResourcePath(bucket: string, key: string, resource: string): string;
    putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ port: number; address: string }>;
    close(): Promise<void>;
    middleware: Middleware[];
    store: FilesystemStore;
    httpServer: Server;
  }
}
