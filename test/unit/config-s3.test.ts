import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/config.js';

// the S3 slice: where archives are stored when they are not on the local disk
describe('the S3 storage configuration', () => {
  it('bounds chunks by time only for a worker of its own on S3, whose api cannot read its disk for the live edge', () => {
    const seconds = (env: Record<string, string>) => parseConfig({ S3_BUCKET: 'archive', ...env }).capture.chunkSeconds;
    expect(seconds({ KURA_STORAGE: 's3', KURA_ROLE: 'worker' })).toBe(30);
    expect(seconds({ KURA_STORAGE: 's3' })).toBe(0); // kura serve: its api reads the spool
    expect(seconds({ KURA_ROLE: 'worker' })).toBe(0); // fs: the api shares the data directory
    expect(seconds({ KURA_STORAGE: 's3', KURA_ROLE: 'worker', KURA_SPOOL_CHUNK_SECONDS: '6' })).toBe(6);
    expect(seconds({ KURA_STORAGE: 's3', KURA_ROLE: 'worker', KURA_SPOOL_CHUNK_SECONDS: '0' })).toBe(0);
  });

  it('reads the S3 storage slice, with the SDK defaults where it is silent', () => {
    expect(parseConfig({ KURA_STORAGE: 's3', S3_BUCKET: 'archive' }).storage).toEqual({
      kind: 's3',
      endpoint: undefined,
      region: 'us-east-1',
      bucket: 'archive',
      credentials: undefined,
      forcePathStyle: false,
      publicUrl: undefined,
      presignSeconds: 3600,
    });
    const full = parseConfig({
      KURA_STORAGE: 's3',
      S3_ENDPOINT: 'http://minio:9000/',
      S3_REGION: 'eu-central-1',
      S3_BUCKET: 'archive',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: 'true',
      S3_PUBLIC_URL: 'https://cdn.example/kura/',
      S3_PRESIGN_SECONDS: '900',
    });
    expect(full.storage).toEqual({
      kind: 's3',
      endpoint: 'http://minio:9000',
      region: 'eu-central-1',
      bucket: 'archive',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      forcePathStyle: true,
      publicUrl: 'https://cdn.example/kura',
      presignSeconds: 900,
    });
  });

  it('names what an S3 configuration lacks', () => {
    const problems = (() => {
      try {
        parseConfig({ KURA_STORAGE: 's3', S3_ACCESS_KEY_ID: 'id', S3_ENDPOINT: 'minio:9000', S3_PRESIGN_SECONDS: '5' });
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    })();
    expect(problems).toEqual([
      'S3_BUCKET is required when KURA_STORAGE=s3',
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together (or neither, for the AWS default credentials)',
      'S3_ENDPOINT must be an http(s) URL (got "minio:9000")',
      'S3_PRESIGN_SECONDS must be a whole number from 60 to 604800 (got "5")',
    ]);
  });
});
