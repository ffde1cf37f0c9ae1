/**
 * A multipart form's parts, streamed: each file to a scratch file as it arrives (memory holds a
 * chunk at a time, not the photo) with its type read by sharp from its header, each text field
 * checked as text, and each part's name against the call's payload keys. What is refused is said
 * by key (flows/server-messages.json), in the driver's language.
 */
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { KEPT_FILE_PREFIX } from '../../../shared/review.js';
import { MAX_FILE_BYTES, type ReceivedFile } from '../uploadStore.js';
import { refusal } from '../../serverMessages.js';
import { isWellFormedText } from '../wellFormedText.js';

/** Longest text a multipart field may carry (the longest form value is an email: 254). */
const MAX_FIELD_BYTES = 4 * 1024;

export interface MultipartBody {
  /** The text fields, by payload key. */
  fields: Record<string, string>;
  /** The files received to scratch files, by payload key: the caller discards them when done. */
  files: Record<string, ReceivedFile>;
  /** The files kept from the step's earlier answers (`kept:<upload id>`): upload id by payload key. */
  kept: Record<string, string>;
}

/** The parser's own failures (no boundary, cut short) as our refusal; ours and its limits' (413) pass as they are. */
export function readable(error: unknown): unknown {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status < 500 ? error : refusal(400, 'form.unreadable');
}

export function requireMultipart(request: FastifyRequest): void {
  if (!request.isMultipart()) throw refusal(415, 'form.sendAsMultipart');
}

/**
 * Reads a call's multipart body: `keys` are its payload keys, `fileKeys` those that carry a file.
 * On a refusal the files received so far are discarded.
 */
export async function readMultipartBody(request: FastifyRequest, keys: ReadonlySet<string>, fileKeys: ReadonlySet<string>): Promise<MultipartBody> {
  requireMultipart(request);
  const textKeyCount = keys.size - fileKeys.size;
  const body: MultipartBody = { fields: {}, files: {}, kept: {} };
  const { fields, files, kept } = body;
  const uploads = request.server.uploads;
  const parts = request.parts({
    // Exactly as many files as the call maps; a few spare text fields so an unknown one is
    // reported by name rather than as "too many".
    limits: {
      files: fileKeys.size,
      fileSize: MAX_FILE_BYTES,
      fields: textKeyCount + 10,
      fieldSize: MAX_FIELD_BYTES,
      parts: fileKeys.size + textKeyCount + 10,
    },
  });
  try {
    for await (const part of parts) {
      const name = part.fieldname;
      if (part.type === 'file') {
        const file = part as MultipartFile;
        if (!fileKeys.has(name)) {
          file.file.resume();
          throw keys.has(name) ? refusal(400, 'form.fileNotText', { field: name }) : refusal(400, 'request.unknownField', { field: name });
        }
        if (files[name] || Object.hasOwn(kept, name)) {
          file.file.resume();
          throw refusal(400, 'form.oneFileOnly', { field: name });
        }
        // To a scratch file as it arrives: memory holds a chunk at a time, not the photo.
        const received = await uploads.receive(file.file);
        // An empty file input sends an empty part with no name: the field is simply absent.
        if (received.size === 0 && !file.filename) await uploads.discard(received);
        else files[name] = received;
      } else {
        const field = part as MultipartValue;
        if (Object.hasOwn(fields, name) || Object.hasOwn(kept, name)) throw refusal(400, 'form.sentTwice', { field: name });
        if (fileKeys.has(name)) {
          if (typeof field.value !== 'string' || !field.value.startsWith(KEPT_FILE_PREFIX) || files[name])
            throw refusal(400, 'form.mustBeFile', { field: name });
          kept[name] = field.value.slice(KEPT_FILE_PREFIX.length);
          continue;
        }
        if (field.valueTruncated) throw refusal(400, 'form.tooLong', { field: name });
        if (typeof field.value !== 'string') throw refusal(400, 'form.mustBeText', { field: name });
        if (!isWellFormedText(field.value)) throw refusal(400, 'request.illFormedText');
        fields[name] = field.value;
      }
    }
  } catch (error) {
    await Promise.all(Object.values(files).map((file) => uploads.discard(file)));
    throw readable(error);
  }
  return body;
}
