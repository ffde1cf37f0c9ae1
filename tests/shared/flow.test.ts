import { describe, expect, it } from 'vitest';
import {
  buildPayload,
  failingGuard,
  interpolate,
  lookupIn,
  readPayload,
  resolveNextStep,
  resolveResume,
  stepSchemaName,
  type FormStep,
  type ScreenStep,
} from '../../src/shared/flow.js';
import { loadFlow } from '../../src/shared/projectFiles.js';

const flow = loadFlow();
const step = (id: string) => flow.steps[id] as FormStep;
const call = (name: string) => flow.calls[name]!;

describe('buildPayload', () => {
  it('lower-cases the email, prefixes the phone with +1 and sends an empty referral code as null', () => {
    const payload = buildPayload(
      call('driverEmailSignUp'),
      lookupIn({
        form: { email: ' Driver@Example.COM ', phoneNo: '2025550143', password: 'Str0ng!Pass', confirmPassword: 'Str0ng!Pass', accept: true, twilioCheck: true },
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
      surprise: 1,
    });
    expect(received.form).toEqual({ email: 'driver@example.com', phoneNo: '2025550143' });
    expect(received.extras).toEqual({ ip: null, idToken: 't' });
    expect(received.unknown).toEqual(['surprise']);
  });

  it('maps zipcode back to zipCode and lists the file fields', () => {
    const received = readPayload(call('completeProfile'), { zipcode: '90001', MI: '' });
    expect(received.form).toEqual({ zipCode: '90001' });
    expect(received.files.profilePicture).toBe('profilePicture');
  });
});

describe('resolveNextStep', () => {
  it('goes from the phone code to the profile after an email sign-up', () => {
    expect(resolveNextStep(step('verifyPhone').next, lookupIn({ state: {} }))?.to).toBe('completeProfile');
  });

  it('goes from the phone code to the vehicle photos when the upload flag is set', () => {
    expect(resolveNextStep(step('verifyPhone').next, lookupIn({ state: { upload: true } }))?.to).toBe('uploadVehicleImages');
  });

  it('sends a social driver from the profile to the phone code with the upload flag', () => {
    const next = resolveNextStep(step('completeProfile').next, lookupIn({ storage: { isSocial: 'yes' } }));
    expect(next).toEqual({ when: [{ source: 'storage.isSocial', equals: 'yes' }], to: 'verifyPhone', state: { upload: true } });
  });

  it('sends an email driver from the profile to the vehicle photos', () => {
    expect(resolveNextStep(step('completeProfile').next, lookupIn({ storage: {} }))?.to).toBe('uploadVehicleImages');
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

describe('resolveResume (the table of spec §4)', () => {
  const resume = (status: Record<string, unknown>) => resolveResume(flow.resume, lookupIn({ status }));
  const keepsLink = { 'cookie.token': 'response.token', 'storage.driver_id': 'link.id' };
  it.each([
    [{ status: 'pending', isSessionComplete: true, isSubscriptionPaid: false }, 'awaitingApproval', keepsLink],
    [{ status: 'pending', isSessionComplete: true, isSubscriptionPaid: true }, 'awaitingApproval', keepsLink],
    [{ status: 'pending', isSessionComplete: false, isSubscriptionPaid: false }, 'completeProfile', keepsLink],
    [{ status: 'approved', isSessionComplete: true, isSubscriptionPaid: false }, 'addCard', keepsLink],
    [{ status: 'approved', isSessionComplete: false, isSubscriptionPaid: false }, 'addCard', keepsLink],
    [{ status: 'approved', isSessionComplete: true, isSubscriptionPaid: true }, 'signup', undefined],
    [{ status: 'rejected', isSessionComplete: true, isSubscriptionPaid: false }, 'signup', undefined],
  ])('routes %o to %s', (status, to, store) => {
    const rule = resume(status);
    expect(rule?.to).toBe(to);
    expect(rule?.store).toEqual(store);
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

describe('social sign-up', () => {
  const social = (flow.steps.signup as FormStep).social!;
  it('stores the token in storage and the cookie, sets isSocial to yes and goes to the profile', () => {
    const lookup = lookupIn({ response: { token: 't', driverId: 'd' } });
    const stored = Object.fromEntries(Object.entries(social.store).map(([target, source]) => [target, lookup(source)]));
    expect(stored).toEqual({ 'storage.token': 't', 'cookie.token': 't', 'storage.driver_id': 'd', 'storage.isSocial': 'yes' });
    expect(resolveNextStep(social.next, lookup)?.to).toBe('completeProfile');
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
    expect(interpolate('We sent a code to {storage.phone}.', lookupIn({ storage: { phone: '+12025550143' } }))).toBe(
      'We sent a code to +12025550143.',
    );
  });
});
