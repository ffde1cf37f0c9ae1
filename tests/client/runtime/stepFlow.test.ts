// @vitest-environment happy-dom
// What a form step's submit does, as the flow file says (runtime/stepFlow.ts): the call sent with
// the payload the flow maps, what the answer stores, the follow-up calls, and where the driver goes.
// The API is a stand-in answering the page's fetches.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flow, isFormStep } from '../../../src/client/runtime/flow.js';
import { browserLookup, guardRedirect, nextNavigation, submitStep } from '../../../src/client/runtime/stepFlow.js';
import { getItem, getTokenCookie, setItem, setTokenCookie } from '../../../src/client/runtime/storage.js';
import { clearAllPhotos, setPhoto } from '../../../widgets/photoStore.js';
import type { FormStep } from '../../../src/shared/flow.js';
import { serveApi } from '../../support/serveApi.js';

function formStep(id: string): FormStep {
  const step = flow.steps[id];
  if (!step || !isFormStep(step)) throw new Error(`${id} is not a form step`);
  return step;
}

beforeEach(() => {
  localStorage.clear();
  document.cookie = 'token=; Max-Age=0; Path=/';
  window.history.replaceState(null, '');
  clearAllPhotos();
});
afterEach(() => vi.unstubAllGlobals());

describe('the browser’s sources (browserLookup)', () => {
  it('reads the stored keys, the token cookie, the history state, a photo, and what the submit adds', () => {
    setItem('email', 'ana@example.com');
    setTokenCookie('session-token');
    window.history.replaceState({ from: 'review' }, '');
    const photo = new Blob(['jpeg'], { type: 'image/jpeg' });
    setPhoto('profilePicture', photo);
    const lookup = browserLookup({ form: { otp: '1234' } });
    expect(lookup('storage.email')).toBe('ana@example.com');
    expect(lookup('cookie.token')).toBe('session-token');
    expect(lookup('state.from')).toBe('review');
    expect(lookup('file.profilePicture')).toBe(photo);
    expect(lookup('form.otp')).toBe('1234');
    expect(lookup('storage.phone')).toBeUndefined();
  });
});

describe('a step’s guards (guardRedirect)', () => {
  it('sends a driver without the stored email back to the sign-up, and lets one with it stay', () => {
    expect(guardRedirect(formStep('verifyEmail').guards)?.to).toBe('signup');
    setItem('email', 'ana@example.com');
    expect(guardRedirect(formStep('verifyEmail').guards)).toBeUndefined();
    expect(guardRedirect(undefined)).toBeUndefined();
  });
});

describe('where a step goes next (nextNavigation)', () => {
  it('takes the first rule that holds, with the state it passes', async () => {
    const rules = [
      { when: [{ source: 'response.skip', equals: true }], to: 'addBank' },
      { to: 'addVehicle', state: { from: 'profile' } },
    ];
    const lookup = browserLookup({ response: { skip: false } });
    expect(await nextNavigation(rules, {}, lookup)).toEqual({ to: flow.steps.addVehicle?.route, state: { from: 'profile' } });
    expect(await nextNavigation(rules, {}, browserLookup({ response: { skip: true } }))).toEqual({ to: flow.steps.addBank?.route, state: undefined });
    expect(await nextNavigation(undefined, {}, lookup)).toBeUndefined();
  });
});

describe('a step sent (submitStep), on the email code step', () => {
  beforeEach(() => {
    setItem('email', 'ana@example.com');
    setItem('phone', '+12015550123');
    setItem('token', 'sign-up-token');
  });

  it('sends the code as the flow maps it, keeps the session it gets, sends the phone code with it and goes to the phone step', async () => {
    const sent = serveApi({
      'POST /auth/validateOTP': { status: 200, body: { token: 'session-token', driverId: 'driver-1', data: { isSocial: false } } },
      'POST /auth/sendPhoneOTP': { status: 201, body: {} },
    });
    const outcome = await submitStep('verifyEmail', formStep('verifyEmail'), { otp: '1234' });
    expect(outcome).toEqual({ ok: true, navigation: { to: '/verify-otp-phone', state: undefined }, successToast: 'Email OTP Verified Successfully.' });
    expect(sent).toEqual([
      { method: 'POST', path: '/auth/validateOTP', bearer: 'Bearer sign-up-token', body: { code: '1234', email: 'ana@example.com' } },
      { method: 'POST', path: '/auth/sendPhoneOTP', bearer: 'Bearer session-token', body: { phoneNo: '+12015550123' } },
    ]);
    expect(getItem('token')).toBe('session-token');
    expect(getTokenCookie()).toBe('session-token');
    expect(getItem('driver_id')).toBe('driver-1');
  });

  it('answers the server’s refusal with its message and field errors, storing nothing', async () => {
    serveApi({ 'POST /auth/validateOTP': { status: 400, body: { message: 'Invalid OTP', errors: { otp: ['Invalid OTP'] } } } });
    const outcome = await submitStep('verifyEmail', formStep('verifyEmail'), { otp: '9999' });
    expect(outcome).toEqual({ ok: false, message: 'Invalid OTP', fieldErrors: { otp: ['Invalid OTP'] }, signInAgain: false });
    expect(getItem('token')).toBe('sign-up-token');
    expect(getItem('driver_id')).toBeUndefined();
  });

  it('says the driver must sign in again when the server asks it', async () => {
    serveApi({ 'POST /auth/validateOTP': { status: 401, body: { message: 'Please sign in again.', reason: 'signInAgain' } } });
    const outcome = await submitStep('verifyEmail', formStep('verifyEmail'), { otp: '1234' });
    expect(outcome).toMatchObject({ ok: false, message: 'Please sign in again.', signInAgain: true });
  });

  it('clears the session and goes back to the sign-up when the phone code can’t be sent, with the flow’s words when the server has none', async () => {
    serveApi({
      'POST /auth/validateOTP': { status: 200, body: { token: 'session-token', driverId: 'driver-1', data: { isSocial: false } } },
      'POST /auth/sendPhoneOTP': { status: 500, body: {} },
    });
    const outcome = await submitStep('verifyEmail', formStep('verifyEmail'), { otp: '1234' });
    expect(outcome).toEqual({ ok: false, message: 'Invalid Phone number provided. Please resignup.', navigation: { to: '/signup' } });
    expect(getItem('token')).toBeUndefined();
    expect(getTokenCookie()).toBeUndefined();
  });

  it('says the connection dropped, and stores nothing, when the network is down', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    const outcome = await submitStep('verifyEmail', formStep('verifyEmail'), { otp: '1234' });
    expect(outcome).toMatchObject({ ok: false, message: flow.messages.connectionLost });
    expect(getItem('token')).toBe('sign-up-token');
  });
});
