/**
 * One file of a step sent ahead of it, in a request of its own (so that a retry resends only what
 * did not arrive): checked by the step's schema as the step checks it, then decoded, encoded again
 * and stored. 404 when the step takes no file in `field`.
 */
import type { FastifyRequest } from 'fastify';
import { expandErrors, fieldOf } from '../../../shared/errors.js';
import { formError } from '../../errors.js';
import { MAX_FILE_BYTES, type ReceivedFile, type StoredFile } from '../uploadStore.js';
import { refusal } from '../../serverMessages.js';
import { messageOf, type CallCheck } from './checkCall.js';
import type { FlowIndex } from './flowIndex.js';
import { readable, requireMultipart } from './multipartBody.js';

export async function receiveFileAhead(
  index: FlowIndex,
  { schemaNamed }: CallCheck,
  stepId: string,
  field: string,
  request: FastifyRequest,
): Promise<StoredFile> {
  const step = Object.hasOwn(index.flow.steps, stepId) ? index.flow.steps[stepId] : undefined;
  const key = index.fileKeyOf(stepId, field);
  const schemaName =
    step?.kind === 'form' && key !== undefined
      ? [step.schema, ...(step.variants ?? []).map((variant) => variant.schema)].find((name) => Object.hasOwn(schemaNamed(name).properties, field))
      : undefined;
  if (!schemaName || key === undefined) throw refusal(404, 'form.noFileField');
  requireMultipart(request);
  const uploads = request.server.uploads;
  let received: ReceivedFile | undefined;
  try {
    try {
      for await (const part of request.parts({ limits: { files: 1, fileSize: MAX_FILE_BYTES, fields: 0, parts: 1 } })) {
        if (part.type !== 'file' || part.fieldname !== key) {
          if (part.type === 'file') part.file.resume();
          throw refusal(400, 'form.oneFileAs', { field: key });
        }
        received = await uploads.receive(part.file);
      }
    } catch (error) {
      throw readable(error);
    }
    const form = received && received.size > 0 ? { [field]: received.mime } : {};
    const problem = expandErrors(schemaNamed(schemaName, request.locale).errorsOf(form)).find((error) => fieldOf(error.property) === field);
    if (problem) {
      const message = messageOf(problem, key);
      throw formError(400, message, { [field]: [message] });
    }
    if (!received) throw refusal(400, 'form.notValid', { fields: [field] });
    const stored = await uploads.store(received, field);
    // Removed with the request if it fails before its row is written (plugins/uploads.ts).
    (request.uncommittedUploads ??= []).push(stored);
    return stored;
  } finally {
    if (received) await uploads.discard(received);
  }
}
