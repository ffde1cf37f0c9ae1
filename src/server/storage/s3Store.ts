/**
 * Documents in an S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, GCS interoperability),
 * through the AWS SDK: every server instance reads what any other wrote. Credentials come from
 * the SDK's usual chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a profile, an instance role).
 * Objects are private and already encrypted by the server; S3 never sees a document in clear.
 */
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { StorageConfig } from '../config.js';
import { StoreUnavailable, type ObjectStore } from './objectStore.js';

/** An S3 answer that is the caller's fault (4xx) is a bug here, not an outage; anything else is. */
function unavailable(error: unknown): never {
  if (error instanceof S3ServiceException && (error.$metadata.httpStatusCode ?? 500) < 500 && error.name !== 'SlowDown') throw error;
  throw new StoreUnavailable(error instanceof Error ? error.message : String(error));
}

export function createS3Store(config: Extract<StorageConfig, { kind: 's3' }>): ObjectStore {
  const client = new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle,
    // Checksums only where S3 requires them: several S3-compatible servers refuse the SDK's newer
    // default (aws-chunked bodies with trailing checksums). GCM's tag already guards the content.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
  const bucket = config.bucket;
  return {
    async put(name, sealed) {
      // Whole in memory here: the SDK sends the body again when it retries, and a stream is read once.
      const body = Buffer.concat(await sealed.toArray());
      await client
        .send(new PutObjectCommand({ Bucket: bucket, Key: name, Body: body, ContentType: 'application/octet-stream', ContentLength: body.length }))
        .catch(unavailable);
    },
    async get(name) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: name }));
        return object.Body ? Buffer.from(await object.Body.transformToByteArray()) : Buffer.alloc(0);
      } catch (error) {
        if (error instanceof NoSuchKey) return null;
        return unavailable(error);
      }
    },
    async delete(name) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: name })).catch(unavailable);
    },
    async *list() {
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token })).catch(unavailable);
        for (const object of page.Contents ?? []) if (object.Key) yield { name: object.Key, modifiedAt: object.LastModified ?? new Date() };
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
    close: () => client.destroy(),
  };
}
