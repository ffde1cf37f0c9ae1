// The check of a call's values (src/server/lib/callReader/checkCall.ts), without Fastify: the
// payload a fixture's answers make, as the flow maps them, read back and checked by the step's
// schema; what it refuses is said by key, in the request's language.
import { readFileSync } from 'node:fs';
import { HttpError } from '@fastify/sensible';
import { describe, expect, it } from 'vitest';
import { createCallCheck } from '../../../../src/server/lib/callReader/checkCall.js';
import { createFlowIndex } from '../../../../src/server/lib/callReader/flowIndex.js';
import { keyedMessageOf } from '../../../../src/server/serverMessages.js';
import { parseFixture } from '../../../../src/shared/fixtureFiles.js';
import { buildPayload, lookupIn } from '../../../../src/shared/flow.js';
import { loadFlow } from '../../../../src/node/projectFiles.js';

const flow = loadFlow();
const { check } = createCallCheck(createFlowIndex(flow));

/** A fixture's answers, its relative dates ("$today+1y") resolved. */
const fixture = (path: string) => parseFixture(JSON.parse(readFileSync(new URL(`../../../fixtures/${path}`, import.meta.url), 'utf8')), flow).data;
const signUpBody = (form = fixture('signup/valid/complete.json')) =>
  buildPayload(flow.calls.driverEmailSignUp!, lookupIn({ form, context: { idToken: 'a-token', ip: '203.0.113.7' } }));

/** What `run` threw, as the answer's status and the refusal's key and parameters (or its message). */
function refusalOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    const { statusCode, message, errors } = error as HttpError;
    return { statusCode, keyed: keyedMessageOf(error), message, errors };
  }
  throw new Error('the check took it');
}

describe('checkCall', () => {
  it('reads a valid sign-up back to its form, its payload (transforms applied once) and its context', () => {
    const checked = check('driverEmailSignUp', { body: { ...signUpBody(), email: 'Driver@Example.com' }, locale: 'en' });
    expect(checked.form).toMatchObject({ email: 'Driver@Example.com', phoneNo: '2025550143', accept: true });
    expect(checked.sent).toMatchObject({ email: 'driver@example.com', phoneNo: '+12025550143' });
    expect(checked.context).toEqual({ idToken: 'a-token', ip: '203.0.113.7' });
    expect(checked.step).toBe('signup');
    expect(checked.schema).toMatchObject({ name: 'signup', version: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });

  it('refuses an unknown field by key, with the field', () => {
    expect(refusalOf(() => check('driverEmailSignUp', { body: { ...signUpBody(), nickname: 'Ada' }, locale: 'es' }))).toMatchObject({
      statusCode: 400,
      keyed: { key: 'request.unknownField', params: { field: 'nickname' } },
      message: 'Unknown field: nickname',
    });
  });

  it('tells a form problem in the request’s language, under its field', () => {
    const refused = refusalOf(() =>
      check('driverEmailSignUp', { body: signUpBody({ ...fixture('signup/valid/complete.json'), phoneNo: '12' }), locale: 'es' }),
    );
    expect(refused).toMatchObject({ statusCode: 400, message: 'El número de teléfono debe ser válido.' });
    expect(refused.errors).toMatchObject({ phoneNo: expect.arrayContaining(['El número de teléfono debe ser válido.']) });
  });

  it('refuses a context value the call maps but did not get, after the form', () => {
    const { idToken: _, ...body } = signUpBody();
    expect(refusalOf(() => check('driverEmailSignUp', { body, locale: 'en' }))).toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('idToken'),
    });
  });

  it('reads a multipart form’s "true" and "false" as booleans where the schema says boolean', () => {
    const data = fixture('addVehicle/valid/complete.json');
    const files = Object.fromEntries(
      Object.entries(flow.calls.completeVehicle!.payload ?? {})
        .filter(([, mapping]) => mapping.from.startsWith('file.'))
        .map(([key]) => [key, { mime: 'image/jpeg' }]),
    );
    const body: Record<string, unknown> = { vehicleId: '6f1f7c1e-2f7a-4d55-9a43-1c6f3f1e9b10' };
    for (const [key, mapping] of Object.entries(flow.calls.completeVehicle!.payload ?? {})) {
      const field = mapping.from.split('.')[1]!;
      if (mapping.from.startsWith('form.') && data[field] !== undefined) body[key] = String(data[field]);
      if (mapping.from.startsWith('file.')) body[key] = true;
    }
    body.isWheelChairAccessible = 'true';
    const checked = check('completeVehicle', { body, files, fromMultipart: true, locale: 'en' }, { expects: ['vehicle_id'] });
    expect(checked.form.isWheelChairAccessible).toBe(true);
    expect(Object.keys(checked.files)).toHaveLength(Object.keys(files).length);
  });

  it('stops a route whose call no longer maps a value it reads (a fault of the flow, not the driver’s)', () => {
    expect(() => check('driverEmailSignUp', { body: signUpBody(), locale: 'en' }, { expects: ['vehicle_id'] })).toThrow(
      'the call "driverEmailSignUp" no longer sends vehicle_id',
    );
  });
});
