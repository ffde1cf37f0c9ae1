import { describe, expect, it } from 'vitest';
import {
  buildPayload,
  failingGuard,
  interpolate,
  lookupIn,
  readPayload,
  resolveNextStep,
  resolveResume,
  stageOf,
  stepSchemaName,
  storageForStatus,
  type FormStep,
  type ScreenStep,
} from '../../src/shared/flow.js';
import { FLOW_FILE, loadFlow } from '../../src/node/projectFiles.js';

const flow = loadFlow();
const step = (id: string) => flow.steps[id] as FormStep;
const call = (name: string) => flow.calls[name]!;
/** A step's next rules (not the resume table). */
const rules = (id: string) => {
  const next = step(id).next;
  if (!Array.isArray(next)) throw new Error(`step ${id} goes on by the resume table`);
  return next;
};

describe('buildPayload', () => {
  it('lower-cases the email, prefixes the phone with +1 and sends an empty referral code as null', () => {
    const payload = buildPayload(
      call('driverEmailSignUp'),
      lookupIn({
        form: {
          email: ' Driver@Example.COM ',
          phoneNo: '2025550143',
          password: 'Str0ng!Pass',
          confirmPassword: 'Str0ng!Pass',
          accept: true,
          twilioCheck: true,
        },
        context: { ip: '203.0.113.9', idToken: 'id-token' },
      }),
    );
    expect(payload).toEqual({
      email: 'driver@example.com',
      phoneNo: '+12025550143',
      password: 'Str0ng!Pass',
      confirmPassword: 'Str0ng!Pass',
      referalCode: null,
      accept: true,
      twilioCheck: true,
      ip: '203.0.113.9',
      idToken: 'id-token',
    });
  });

  it('sends zipCode as zipcode and MI and suffix only when filled in', () => {
    const form = { firstName: 'Dana', zipCode: '90001', MI: '', suffix: 'Jr.' };
    const payload = buildPayload(call('completeProfile'), lookupIn({ form }));
    expect(payload.zipcode).toBe('90001');
    expect(payload).not.toHaveProperty('zipCode');
    expect(payload).not.toHaveProperty('MI');
    expect(payload.suffix).toBe('Jr.');
    expect(payload).not.toHaveProperty('phoneNo');
  });

  it('reads files and stored values through the lookup', () => {
    const blob = { kind: 'photo' };
    const payload = buildPayload(call('completeVehicle'), (source) =>
      source === 'file.proofInsurance' ? blob : source === 'storage.vehicle_id' ? 'vehicle-1' : undefined,
    );
    expect(payload.proofInsurance).toBe(blob);
    expect(payload.vehicleId).toBe('vehicle-1');
  });
});

describe('readPayload', () => {
  it('turns a sign-up payload back into the form the schema describes', () => {
    const received = readPayload(call('driverEmailSignUp'), {
      email: 'driver@example.com',
      phoneNo: '+12025550143',
      referalCode: null,
      ip: null,
      idToken: 't',
    });
    expect(received.form).toEqual({ email: 'driver@example.com', phoneNo: '2025550143' });
  });

  it('maps zipcode back to zipCode and lists the file fields', () => {
    const received = readPayload(call('completeProfile'), { zipcode: '90001', MI: '' });
    expect(received.form).toEqual({ zipCode: '90001' });
    expect(received.files.profilePicture).toBe('profilePicture');
  });
});

describe('resolveNextStep', () => {
  it('goes from the phone code to the profile after an email sign-up', () => {
    expect(resolveNextStep(rules('verifyPhone'), lookupIn({ state: {} }))?.to).toBe('completeProfile');
  });

  it('goes from the phone code to the vehicle photos when the upload flag is set', () => {
    expect(resolveNextStep(rules('verifyPhone'), lookupIn({ state: { upload: true } }))?.to).toBe('uploadVehicleImages');
  });

  it('sends a social driver from the profile to the phone code with the upload flag', () => {
    const next = resolveNextStep(rules('completeProfile'), lookupIn({ storage: { isSocial: 'yes' } }));
    expect(next).toEqual({ when: [{ source: 'storage.isSocial', equals: 'yes' }], to: 'verifyPhone', state: { upload: true } });
  });

  it('sends an email driver from the profile to the vehicle photos', () => {
    expect(resolveNextStep(rules('completeProfile'), lookupIn({ storage: {} }))?.to).toBe('uploadVehicleImages');
  });
});

describe('stepSchemaName', () => {
  it('renders the social variant of the profile for a social driver only', () => {
    expect(stepSchemaName(step('completeProfile'), lookupIn({ storage: { isSocial: 'yes' } }))).toBe('profile-social');
    expect(stepSchemaName(step('completeProfile'), lookupIn({ storage: {} }))).toBe('profile');
  });
});

describe('failingGuard', () => {
  it('sends a driver without the token cookie from Add Vehicle to sign-up with "Session expired, Please relogin"', () => {
    const guard = failingGuard(step('addVehicle').guards, lookupIn({ storage: { vehicle_id: 'v' }, cookie: {} }));
    expect(guard).toMatchObject({ toast: 'Session expired, Please relogin', to: 'signup' });
  });

  it('sends a driver without a stored vehicle id to sign-up with "Vehicle Id not found. Please re-signup."', () => {
    const guard = failingGuard(step('addVehicle').guards, lookupIn({ storage: {}, cookie: { token: 't' } }));
    expect(guard).toMatchObject({ toast: 'Vehicle Id not found. Please re-signup.', to: 'signup' });
  });

  it('lets a driver with both through', () => {
    expect(failingGuard(step('addVehicle').guards, lookupIn({ storage: { vehicle_id: 'v' }, cookie: { token: 't' } }))).toBeUndefined();
  });

  it('sends a driver without a stored email from the email code to sign-up', () => {
    expect(failingGuard(step('verifyEmail').guards, lookupIn({ storage: {} }))?.to).toBe('signup');
  });
});

describe('resolveResume (the table of spec §4, and the rows added so every returning driver can go on)', () => {
  /** A driver who verified email and phone and has not sent everything yet, unless said otherwise. */
  const base = { isEmailVerified: true, isPhoneVerified: true, isProfileComplete: false, isSocial: false, isSubscriptionPaid: false };
  const resume = (status: Record<string, unknown>) => resolveResume(flow.resume, lookupIn({ status: { ...base, ...status } }));
  const session = { 'cookie.token': 'response.token', 'storage.token': 'response.token', 'storage.driver_id': 'response.driverId' };
  it.each([
    // Spec §4's four rows.
    [{ status: 'pending', isSessionComplete: true }, 'awaitingApproval', session],
    [{ status: 'pending', isSessionComplete: true, isSubscriptionPaid: true }, 'awaitingApproval', session],
    [{ status: 'pending', isSessionComplete: false }, 'completeProfile', session],
    [{ status: 'pending', isSessionComplete: false, isProfileComplete: true }, 'completeProfile', session],
    [{ status: 'approved', isSessionComplete: true }, 'addCard', session],
    [{ status: 'approved', isSessionComplete: false }, 'addCard', session],
    // Ours: a sign-up whose email was never verified goes back to its code (with the sign-up token only).
    [
      { status: 'pending', isSessionComplete: false, isEmailVerified: false, isPhoneVerified: false },
      'verifyEmail',
      { 'storage.token': 'response.token', 'storage.driver_id': 'response.driverId', 'storage.email': 'response.email', 'storage.phone': 'response.phone' },
    ],
    // Ours: an email sign-up verifies the phone before the profile, the server asks it.
    [{ status: 'pending', isSessionComplete: false, isPhoneVerified: false }, 'verifyPhone', { ...session, 'storage.phone': 'response.phone' }],
    // Ours: a social sign-up gets its variant of the profile, and verifies the phone after it.
    [
      { status: 'pending', isSessionComplete: false, isPhoneVerified: false, isSocial: true },
      'completeProfile',
      { ...session, 'storage.isSocial': 'const.yes' },
    ],
    [
      { status: 'pending', isSessionComplete: false, isPhoneVerified: false, isSocial: true, isProfileComplete: true },
      'verifyPhone',
      { ...session, 'storage.phone': 'response.phone', 'storage.isSocial': 'const.yes' },
    ],
    // Ours: a paid driver may change the payout account; a rejected one reads why on the approval wait.
    [{ status: 'approved', isSessionComplete: true, isSubscriptionPaid: true }, 'addBank', session],
    [{ status: 'rejected', isSessionComplete: true }, 'awaitingApproval', session],
    [{ status: 'unknown' }, 'signup', undefined],
  ])('routes %o to %s', (status, to, store) => {
    const rule = resume(status);
    expect(rule?.to).toBe(to);
    expect(rule?.store).toEqual(store);
  });

  it('sends the phone code on the way to the phone step, with the upload flag after a social profile', () => {
    expect(resume({ status: 'pending', isSessionComplete: false, isPhoneVerified: false })).toMatchObject({
      after: [{ call: 'sendPhoneCode' }],
      to: 'verifyPhone',
    });
    expect(resume({ status: 'pending', isSessionComplete: false, isPhoneVerified: false, isSocial: true, isProfileComplete: true })).toMatchObject({
      after: [{ call: 'sendPhoneCode' }],
      state: { upload: true },
    });
  });
});

describe('the approval wait (poll of /awaiting-approval)', () => {
  const poll = (flow.steps.awaitingApproval as ScreenStep).poll!;
  it('polls the driver status call', () => {
    expect(flow.calls[poll.call]?.path).toBe('/driver/status/{id}');
  });
  it('moves on to /profile-approved once the driver is approved', () => {
    expect(resolveNextStep(poll.next, lookupIn({ status: { status: 'approved' } }))?.to).toBe('profileApproved');
  });
  it.each(['pending', 'rejected'])('stays while the status is %s', (status) => {
    expect(resolveNextStep(poll.next, lookupIn({ status: { status } }))).toBeUndefined();
  });
});

describe('storageForStatus', () => {
  const status = { status: 'pending', isSessionComplete: false, isEmailVerified: true, isPhoneVerified: true, isProfileComplete: true };
  it('is what the browser of a social driver keeps, so the server picks the profile variant the browser renders', () => {
    expect(storageForStatus(flow, { ...status, isSocial: true })).toEqual({ isSocial: 'yes' });
    expect(stepSchemaName(step('completeProfile'), lookupIn({ storage: storageForStatus(flow, { ...status, isSocial: true }) }))).toBe('profile-social');
  });
  it('keeps no social flag for an email sign-up, nor for a rejected driver updating from the approval wait', () => {
    expect(storageForStatus(flow, { ...status, isSocial: false })).toEqual({});
    expect(storageForStatus(flow, { ...status, status: 'rejected', isSessionComplete: true, isSocial: true })).toEqual({});
  });
});

describe('social sign-up', () => {
  const social = flow.social!;
  it('is on the sign-up and the sign-in step, and goes on by the resume table (a new driver: the social profile)', () => {
    expect(step('signup').social).toBe(true);
    expect(step('signIn').social).toBe(true);
    expect(social.next).toEqual([{ resume: true }]);
    const rule = resolveResume(
      flow.resume,
      lookupIn({
        status: { status: 'pending', isSessionComplete: false, isEmailVerified: true, isPhoneVerified: false, isProfileComplete: false, isSocial: true },
      }),
    );
    expect(rule).toMatchObject({
      to: 'completeProfile',
      store: { 'storage.isSocial': 'const.yes', 'storage.token': 'response.token', 'cookie.token': 'response.token' },
    });
  });
  it('offers Google, Apple and Facebook with their popup errors', () => {
    expect(social.providers.map((p) => [p.label, p.popupError])).toEqual([
      ['Continue with Google', 'Cannot open google signin modal.'],
      ['Continue with Apple', 'Cannot open apple signin modal.'],
      ['Sign in with Facebook', 'Cannot open facebook signin modal.'],
    ]);
  });
});

describe('interpolate', () => {
  it('fills the stored phone number into a description', () => {
    expect(interpolate('We sent a code to {storage.phone}.', lookupIn({ storage: { phone: '+12025550143' } }))).toBe('We sent a code to (202) 555-0143.');
  });
  it('fills in nothing when a value it names is not known, so the text’s words without it are shown, never a blank', () => {
    for (const phone of [undefined, '']) expect(interpolate('We sent a code to {storage.phone}.', lookupIn({ storage: { phone } }))).toBeUndefined();
    expect(interpolate('Enter the code.', lookupIn({}))).toBe('Enter the code.');
  });
});

describe('stageOf', () => {
  it("finds a step's stage in the flow as written, and a translation names it with the journey's own words", () => {
    const spanish = loadFlow(FLOW_FILE, 'es');
    const stage = stageOf(flow, flow.steps.addVehicle);
    expect(flow.journey[stage]).toBe('Add Vehicle');
    expect(spanish.journey[stage]).toBe('Agregar vehículo');
    // A step added with its stage and nothing translated: the same stage, in Spanish too.
    expect(stageOf(flow, { journey: 'Add Vehicle' })).toBe(stage);
    expect(stageOf(flow, { journey: 'Add vehicle' })).toBe(-1);
    expect(stageOf(flow, undefined)).toBe(-1);
  });
});
