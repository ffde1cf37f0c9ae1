/**
 * The steps' payloads as the browser sends them, from each step's valid fixture: for the server
 * tests (tests/support/server.ts) and the load harnesses that walk drivers through the API
 * (soak.ts).
 */
import { join } from 'node:path';
import sharp from 'sharp';
import { FIXTURES_DIR, loadFlow, readJsonFile } from '../src/node/projectFiles.js';
import { parseFixture } from '../src/shared/fixtureFiles.js';
import { buildPayload, lookupIn } from '../src/shared/flow.js';

const FLOW = loadFlow();

/**
 * Small real images: the server decodes and re-encodes every upload (src/server/lib/reencodeImage.ts),
 * so a file that merely starts with an image signature is refused as unreadable.
 */
export const solidImage = (width = 32, height = 24, background = '#3366ff') => sharp({ create: { width, height, channels: 3, background } });
/** A 32×24 PNG. */
export const PNG_BYTES = await solidImage().png().toBuffer();
/** A 32×24 JPEG. */
export const JPEG_BYTES = await solidImage().jpeg().toBuffer();

export const file = (bytes: Buffer, name = 'photo.png', type = 'image/png') => ({ bytes, name, type });
export type FormValue = string | ReturnType<typeof file> | undefined;

/** multipart/form-data from plain values; `undefined` leaves a key out. */
export function formData(values: Record<string, FormValue>): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (typeof value === 'string') form.append(key, value);
    else form.append(key, new Blob([new Uint8Array(value.bytes)], { type: value.type }), value.name);
  }
  return form;
}

/**
 * A step's valid fixture (tests/fixtures/<step>/valid/complete.json) as its call sends it: the
 * flow's payload mapping applied as the browser applies it, each photo field's content type
 * ("image/png") a small image of that type, `storage` what the browser has kept (the vehicle id).
 * A field added to a schema and its fixture reaches every caller that sends the step.
 */
export function fixturePayload(step: string, storage: Record<string, unknown> = {}): Record<string, FormValue> {
  const form = parseFixture(readJsonFile(join(FIXTURES_DIR, step, 'valid', 'complete.json')), FLOW).data;
  const formStep = FLOW.steps[step];
  if (formStep?.kind !== 'form') throw new Error(`no form step "${step}" in the flow`);
  const lookup = lookupIn({ form, storage });
  const photo = (field: string) => {
    const type = form[field];
    return type === 'image/png' ? file(PNG_BYTES, `${field}.png`) : file(JPEG_BYTES, `${field}.jpg`, 'image/jpeg');
  };
  const payload = buildPayload(FLOW.calls[formStep.call]!, (source) => (source.startsWith('file.') ? photo(source.slice('file.'.length)) : lookup(source)));
  return Object.fromEntries(
    Object.entries(payload).map(([key, value]) => [
      key,
      value === null || value === undefined ? undefined : typeof value === 'object' ? (value as ReturnType<typeof file>) : String(value),
    ]),
  );
}
