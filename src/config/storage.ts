// The storage slice of the configuration, parsed by src/config/config.ts from the environment it read.
import type { EnvReaders } from './env-readers.js';

/** KURA_STORAGE=s3: the bucket and how downloads reach it. */
export interface S3Config {
  /** Unset: AWS's own endpoint for the region. */
  endpoint: string | undefined;
  region: string;
  bucket: string;
  /** Unset: the AWS SDK's default credential chain (instance role, ~/.aws, AWS_* variables). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
  /** Downloads redirect here (a CDN or public bucket base) instead of to presigned URLs. */
  publicUrl: string | undefined;
  presignSeconds: number;
}

/** Where archives are kept: `dataDir/archive`, or an S3-compatible bucket. */
export type StorageConfig = { kind: 'fs' } | ({ kind: 's3' } & S3Config);

/** The storage slice of the environment; problems are added to `problems` (`httpUrl` adds its own). */
export function parseStorage({ read, integer, oneOf }: EnvReaders, problems: string[], httpUrl: (name: string, raw: string) => string): StorageConfig {
  if (oneOf('KURA_STORAGE', ['fs', 's3'], 'fs') === 'fs') return { kind: 'fs' };
  const bucket = read('S3_BUCKET');
  if (bucket === undefined) problems.push('S3_BUCKET is required when KURA_STORAGE=s3');
  const accessKeyId = read('S3_ACCESS_KEY_ID');
  const secretAccessKey = read('S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together (or neither, for the AWS default credentials)');
  }
  const endpoint = read('S3_ENDPOINT');
  const publicUrl = read('S3_PUBLIC_URL');
  return {
    kind: 's3',
    endpoint: endpoint === undefined ? undefined : httpUrl('S3_ENDPOINT', endpoint),
    region: read('S3_REGION') ?? 'us-east-1',
    bucket: bucket ?? '',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: oneOf('S3_FORCE_PATH_STYLE', ['true', 'false'], 'false') === 'true',
    publicUrl: publicUrl === undefined ? undefined : httpUrl('S3_PUBLIC_URL', publicUrl),
    presignSeconds: integer('S3_PRESIGN_SECONDS', 3600, 60, 7 * 86_400),
  };
}
