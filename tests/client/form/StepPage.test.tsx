// @vitest-environment happy-dom
// The one step page, as the router renders it for a step of the flow: its guard, its form and
// messages, the call it sends with what the flow says, the toasts, and where it goes next. The
// API is a stand-in answering the page's fetches; the server's side is tested in tests/server.
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Suspense } from 'react';
import { Toaster } from 'react-hot-toast';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { flow, isFormStep } from '../../../src/client/runtime/flow.js';
import { StepPage } from '../../../src/client/form/StepPage.js';
import { readDraft, removeAllDrafts, saveDraft } from '../../../src/client/runtime/drafts.js';
import { setItem } from '../../../src/client/runtime/storage.js';
import { PageSuspense } from '../../../src/client/ui/PageSuspense.js';
import { serveApi } from '../../support/serveApi.js';

/** The page at the step's route, once its form module has loaded (React's `use` suspends until then). */
async function renderStep(stepId: string) {
  const step = flow.steps[stepId];
  if (!step || !isFormStep(step)) throw new Error(`${stepId} is not a form step`);
  const location = memoryLocation({ path: step.route, record: true });
  await act(async () => {
    render(
      <Router hook={location.hook}>
        <Suspense fallback={null}>
          <StepPage id={stepId} step={step} />
        </Suspense>
        <Toaster />
      </Router>,
    );
  });
  return { user: userEvent.setup(), history: location.history };
}

beforeEach(async () => {
  localStorage.clear();
  document.cookie = 'token=; Max-Age=0; Path=/';
  await removeAllDrafts();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the step page, on the email code step', () => {
  it('sends a driver who has not signed up back to /signup', async () => {
    const { history } = await renderStep('verifyEmail');
    await waitFor(() => expect(history.at(-1)).toBe('/signup'));
  });

  it('shows the form with the email it was sent to, and asks for the code when it is sent empty', async () => {
    localStorage.setItem('email', 'ana@example.com');
    localStorage.setItem('token', 'sign-up-token');
    const sent = serveApi({});
    const { user } = await renderStep('verifyEmail');
    expect(await screen.findByRole('heading', { name: 'Verify your email' })).toBeInTheDocument();
    expect(screen.getByText('Enter the 4-digit code we sent to ana@example.com.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText('Please enter the 4-digit code from your email.')).toBeInTheDocument();
    expect(sent).toEqual([]);
  });

  it('sends the code as the flow says, and shows the server’s message while keeping what was typed', async () => {
    localStorage.setItem('email', 'ana@example.com');
    localStorage.setItem('token', 'sign-up-token');
    const sent = serveApi({ 'POST /auth/validateOTP': { status: 400, body: { message: 'Invalid OTP' } } });
    const { user, history } = await renderStep('verifyEmail');
    await user.type(await screen.findByRole('textbox', { name: /^Email code/ }), '1234');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText('Invalid OTP')).toBeInTheDocument();
    expect(sent).toEqual([{ method: 'POST', path: '/auth/validateOTP', bearer: 'Bearer sign-up-token', body: { code: '1234', email: 'ana@example.com' } }]);
    expect(screen.getByRole('textbox', { name: /^Email code/ })).toHaveValue('1234');
    expect(history.at(-1)).toBe('/verify-otp-email');
  });

  it('keeps the session it gets, sends the phone code, says "Email OTP Verified Successfully." and moves to the phone step', async () => {
    localStorage.setItem('email', 'ana@example.com');
    localStorage.setItem('phone', '+12015550123');
    localStorage.setItem('token', 'sign-up-token');
    const sent = serveApi({
      'POST /auth/validateOTP': { status: 200, body: { token: 'session-token', driverId: 'driver-1', data: { isSocial: false } } },
      'POST /auth/sendPhoneOTP': { status: 201, body: {} },
    });
    const { user, history } = await renderStep('verifyEmail');
    await user.type(await screen.findByRole('textbox', { name: /^Email code/ }), '1234');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText('Email OTP Verified Successfully.')).toBeInTheDocument();
    await waitFor(() => expect(history.at(-1)).toBe('/verify-otp-phone'));
    expect(sent.map(({ path, bearer }) => [path, bearer])).toEqual([
      ['/auth/validateOTP', 'Bearer sign-up-token'],
      ['/auth/sendPhoneOTP', 'Bearer session-token'],
    ]);
    expect(localStorage.getItem('token')).toBe('session-token');
    expect(localStorage.getItem('driver_id')).toBe('driver-1');
    expect(document.cookie).toContain('token=session-token');
  });

  it('opens with the code kept as a draft on this device, and forgets the draft once the code is sent', async () => {
    localStorage.setItem('email', 'ana@example.com');
    localStorage.setItem('token', 'sign-up-token');
    await saveDraft(undefined, 'verifyEmail', { values: { otp: '12' }, photos: {} });
    serveApi({
      'POST /auth/validateOTP': { status: 200, body: { token: 'session-token', driverId: 'driver-1', data: { isSocial: false } } },
      'POST /auth/sendPhoneOTP': { status: 201, body: {} },
    });
    const { user, history } = await renderStep('verifyEmail');
    const code = await screen.findByRole('textbox', { name: /^Email code/ });
    expect(code).toHaveValue('12');
    await user.type(code, '34');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(history.at(-1)).toBe('/verify-otp-phone'));
    expect(await readDraft(undefined, 'verifyEmail')).toBeUndefined();
  });

  it('resends the code with "Resend" and says "Email Resent Sent Successfully."', async () => {
    localStorage.setItem('email', 'ana@example.com');
    localStorage.setItem('token', 'sign-up-token');
    const sent = serveApi({ 'POST /auth/sendOTP': { status: 201, body: {} } });
    const { user } = await renderStep('verifyEmail');
    await user.click(await screen.findByRole('button', { name: 'Resend' }));
    expect(await screen.findByText('Email Resent Sent Successfully.')).toBeInTheDocument();
    expect(sent).toEqual([{ method: 'POST', path: '/auth/sendOTP', bearer: 'Bearer sign-up-token', body: { email: 'ana@example.com' } }]);
  });

  it('says the connection dropped, keeps the code, and sends nothing twice, when the network is down', async () => {
    localStorage.setItem('email', 'ana@example.com');
    localStorage.setItem('token', 'sign-up-token');
    const fetch = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    vi.stubGlobal('fetch', fetch);
    const { user, history } = await renderStep('verifyEmail');
    await user.type(await screen.findByRole('textbox', { name: /^Email code/ }), '1234');
    await act(() => user.click(screen.getByRole('button', { name: 'Continue' })));
    expect(
      await screen.findByText('The connection dropped and nothing was sent. What you entered is kept: check your connection, then try again.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /^Email code/ })).toHaveValue('1234');
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(history.at(-1)).toBe('/verify-otp-email');
  });
});

describe('the step page, on the profile step', () => {
  it('shows the social variant, with its phone field, once the device says the driver signed up with a provider, the page staying', async () => {
    const step = flow.steps.completeProfile;
    if (!step || !isFormStep(step)) throw new Error('completeProfile is not a form step');
    const location = memoryLocation({ path: step.route });
    const page = () => (
      <Router hook={location.hook}>
        <PageSuspense>
          <StepPage id="completeProfile" step={step} />
        </PageSuspense>
      </Router>
    );
    let view: ReturnType<typeof render> | undefined;
    await act(async () => {
      view = render(page());
    });
    expect(await screen.findByLabelText(/^First Name/)).toBeInTheDocument();
    expect(screen.queryByLabelText(/^Phone Number/)).not.toBeInTheDocument();
    setItem('isSocial', 'yes');
    await act(async () => {
      view?.rerender(page());
    });
    expect(await screen.findByLabelText(/^Phone Number/)).toBeInTheDocument();
    expect(screen.getByLabelText(/^First Name/)).toBeInTheDocument();
  });
});
