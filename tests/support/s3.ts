/**
 * A local S3-compatible server for the object-store tests (s3rver: S3's REST API over a folder,
 * with signature V4 checks), one private bucket, and the credentials the AWS SDK's default chain
 * reads from the environment, as in production. It can be stopped and started again on its port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { StorageConfig } from '../../src/server/config.js';

/** s3rver's own account: the keys it signs with. */
const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';

export interface LocalS3 {
  storage: Extract<StorageConfig, { kind: 's3' }>;
  /** The SDK's environment variables for these credentials. */
  env: Record<string, string>;
  /** Every object in the bucket, with its bytes. */
  objects(): Promise<{ key: string; bytes: Buffer }[]>;
  /** Puts each object in the bucket, under its key. */
  put(objects: { key: string; bytes: Buffer }[]): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startS3(bucket = 'onramp-documents'): Promise<LocalS3> {
  const directory = mkdtempSync(join(tmpdir(), 'onramp-s3-'));
  let port = 0;
  let server: S3rver;
  const start = async () => {
    server = new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }], vhostBuckets: false });
    port = ((await server.run()) as AddressInfo).port;
  };
  await start();
  // Read by the AWS SDK's default credential chain in the server under test, as in production.
  process.env.AWS_ACCESS_KEY_ID = ACCESS_KEY;
  process.env.AWS_SECRET_ACCESS_KEY = SECRET_KEY;
  const storage = { kind: 's3' as const, bucket, region: 'us-east-1', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true };
  const client = new S3Client({
    region: storage.region,
    endpoint: storage.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
  });
  return {
    storage,
    env: { AWS_ACCESS_KEY_ID: ACCESS_KEY, AWS_SECRET_ACCESS_KEY: SECRET_KEY, S3_BUCKET: bucket, S3_REGION: storage.region, S3_ENDPOINT: storage.endpoint },
    async objects() {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      const found: { key: string; bytes: Buffer }[] = [];
      for (const { Key } of listed.Contents ?? []) {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key }));
        found.push({ key: Key!, bytes: Buffer.from(await object.Body!.transformToByteArray()) });
      }
      return found;
    },
    async put(objects) {
      for (const { key, bytes } of objects) await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes }));
    },
    stop: () => server.close(),
    start,
    async close() {
      client.destroy();
      await server.close().catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
