/**
 * Serving an uploaded photo or document back, to its driver (routes/driver.ts) or to an
 * administrator (routes/admin.ts). Who may see it is the route's decision; this finds the file
 * and sends its bytes so that a browser shows them as the image the server encoded and
 * never keeps a copy.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { isUuid } from '../db/db.js';
import { refusal } from '../serverMessages.js';
import { fileAnswer } from './routeSchemas.js';

export interface StoredUpload {
  id: string;
  driverId: string;
  storageName: string;
  mime: string;
}

/** The upload with this id, or a 404 (an id that is not a uuid cannot exist). */
export async function findUpload(app: FastifyInstance, uploadId: string): Promise<StoredUpload> {
  if (!isUuid(uploadId)) throw refusal(404, 'files.notFound');
  const { rows } = await app.db.query<{ id: string; driver_id: string; storage_name: string; mime: string }>(
    'SELECT id, driver_id, storage_name, mime FROM uploads WHERE id = $1',
    [uploadId],
  );
  const row = rows[0];
  if (!row) throw refusal(404, 'files.notFound');
  return { id: row.id, driverId: row.driver_id, storageName: row.storage_name, mime: row.mime };
}

/** The route's answer: the picture, in the type it was encoded as (lib/reencodeImage.ts). */
export const uploadAnswer = { schema: { response: { 200: fileAnswer('The photo or document.', 'image/jpeg', 'image/png', 'image/webp') } } };

/** The decrypted bytes with the type they were re-encoded as (only re-encoded images are ever stored). */
export async function sendUpload(app: FastifyInstance, reply: FastifyReply, upload: StoredUpload) {
  const bytes = await app.uploads.read(upload.storageName);
  if (!bytes) {
    // A row without its object: the store lost it. The driver or reviewer is told it is not there.
    app.log.error({ uploadId: upload.id }, 'An upload row names a document the store does not have');
    throw refusal(404, 'files.notFound');
  }
  return (
    reply
      .header('content-type', upload.mime)
      // The stored type is the one the server encoded; nosniff keeps the browser from guessing another.
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', 'inline')
      // Identity documents: no shared cache, no copy on disk.
      .header('cache-control', 'private, no-store')
      .send(bytes)
  );
}
