/**
 * Reads a request the way the flow file says its call sends it. JSON and multipart bodies go the
 * same way:
 *
 *   body (a JSON object, or a multipart form streamed: multipartBody.ts) → the call's check
 *   (checkCall.ts) → each image decoded and encoded again (reencodeImage.ts: no EXIF/GPS kept, at
 *   most 40 megapixels, unreadable bytes refused) and stored.
 *
 * The routes hold it as `app.callReader` (plugins/callReader.ts).
 */
import type { FastifyRequest } from 'fastify';
import type { Call, Flow } from '../../../shared/flow.js';
import type { Locale } from '../../../shared/locales.js';
import type { StoredFile } from '../uploadStore.js';
import { refusal } from '../../serverMessages.js';
import { createCallCheck, typed, type CallValues, type ContextName, type FormOf, type ReadOptions } from './checkCall.js';
import { receiveFileAhead } from './fileAhead.js';
import { createFlowIndex } from './flowIndex.js';
import { readMultipartBody } from './multipartBody.js';

export interface CallReader {
  /** The flow the reader reads calls by (the last good edit's, under `npm run dev`). */
  readonly flow: Flow;
  /** The same flow with its texts (messages, toasts) in a language: a request's answers are in its own (`request.locale`). */
  flowIn(locale: Locale): Flow;
  /** The call of the flow file by name; throws at start if the flow lacks it. */
  call(name: string): Call;
  /** The form step whose answers a call sends, or null. */
  stepOf(callName: string): string | null;
  json<CallName extends string, Names extends ContextName = never>(
    callName: CallName,
    request: FastifyRequest,
    options?: ReadOptions<Names>,
  ): CallValues<Names, FormOf<CallName>>;
  multipart<CallName extends string, Names extends ContextName = never>(
    callName: CallName,
    request: FastifyRequest,
    options?: ReadOptions<Names>,
  ): Promise<CallValues<Names, FormOf<CallName>>>;
  /** One file of a step sent ahead of it (fileAhead.ts). */
  fileAhead(step: string, field: string, request: FastifyRequest): Promise<StoredFile>;
}

export function createCallReader(flow: Flow): CallReader {
  const index = createFlowIndex(flow);
  const calls = createCallCheck(index);
  const { check } = calls;

  return {
    flow,
    flowIn: index.flowIn,
    call: index.call,
    stepOf: (callName) => index.formStepOf(callName)?.id ?? null,

    json<CallName extends string, Names extends ContextName = never>(callName: CallName, request: FastifyRequest, options: ReadOptions<Names> = {}) {
      if (request.isMultipart()) throw refusal(415, 'request.sendAsJson');
      const body: unknown = request.body ?? {};
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw refusal(400, 'request.bodyNotObject');
      return { ...typed<CallName, Names>(check(callName, { body: body as Record<string, unknown>, locale: request.locale }, options)), files: {} };
    },

    async multipart<CallName extends string, Names extends ContextName = never>(callName: CallName, request: FastifyRequest, options: ReadOptions<Names> = {}) {
      const { files, fields, kept } = await readMultipartBody(request, new Set(Object.keys(index.call(callName).payload ?? {})), index.fileKeysOf(callName));
      const uploads = request.server.uploads;
      try {
        const body: Record<string, unknown> = { ...fields };
        for (const key of [...Object.keys(files), ...Object.keys(kept)]) body[key] = true;
        const checked = check(callName, { body, files, kept, fromMultipart: true, locale: request.locale }, options);
        // Only a valid form's images are decoded (the costly part), one at a time in the whole
        // server to bound memory. What is stored is the re-encoded image: no GPS or other EXIF
        // from the driver's phone in their identity documents, and no pixel bombs (reencodeImage.ts).
        const stored: Record<string, StoredFile> = {};
        for (const [field, key] of Object.entries(checked.files)) {
          stored[field] = await uploads.store(files[key]!, field);
          // Removed with the request if it fails before its rows are written (plugins/uploads.ts).
          (request.uncommittedUploads ??= []).push(stored[field]);
          checked.form[field] = stored[field].mime;
        }
        return { ...typed<CallName, Names>(checked), files: stored };
      } finally {
        await Promise.all(Object.values(files).map((file) => uploads.discard(file)));
      }
    },

    fileAhead: (step, field, request) => receiveFileAhead(index, calls, step, field, request),
  };
}
