// @module-tag chromium
// A fault of our own code in a step's submit, in headless Chromium: the driver is shown the
// flow's message, and the fault reaches the server's log (POST /client-errors) once, named by the
// error, the build and the route pattern, with none of what the driver typed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import flowFile from '../../flows/onboarding.flow.json';
import { contextForTest, expectToast, startJourney, type Journey } from './support.js';

let journey: Journey;
beforeAll(async () => {
  journey = await startJourney();
});
afterAll(async () => {
  await journey?.close();
});

/** The log lines of the browser's fault reports, as the server wrote them. */
const faultLines = () =>
  journey.server.logs
    .map((line) => JSON.parse(line) as { level: number; msg: string; clientError?: Record<string, unknown> })
    .filter((line) => line.clientError);

describe('a fault of our code in a submit', () => {
  it('shows the driver "Something went wrong." and reports the fault to the server’s log once, without the form’s values', async () => {
    const page = await (await contextForTest(journey)).newPage();
    // The sign-up's call answers as no server of ours would: a driver id that is an object the
    // step's store can't turn into text, so our code throws (a TypeError) after the call succeeded.
    await page.route(`**${flowFile.calls.driverEmailSignUp.path}`, (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ success: true, token: 'a-token', driverId: { toString: 1 } }) }),
    );
    const email = `fault-${randomUUID()}@example.com`;
    await page.goto('/signup');
    await page.locator('#root_email').fill(email);
    await page.locator('#root_phoneNo').fill('2025550143');
    await page.locator('#root_password').fill('Str0ng!Pass');
    await page.locator('#root_confirmPassword').fill('Str0ng!Pass');
    await page.locator('#root_accept').check();
    await page.locator('#root_twilioCheck').check();
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();

    await expectToast(page, flowFile.messages.requestFailed);
    expect(flowFile.messages.requestFailed).toBe('Something went wrong.');
    await expect.poll(faultLines).toHaveLength(1);
    const [line] = faultLines();
    expect(line).toMatchObject({
      level: 40,
      msg: 'The browser app failed: a fault of its own code',
      clientError: { name: 'TypeError', message: 'Cannot convert object to primitive value', route: '/signup' },
    });
    const build = await page.evaluate(() => (JSON.parse(document.getElementById('app-config')?.textContent ?? '{}') as { build: string }).build);
    expect(line?.clientError?.build).toBe(build);
    const stack = line?.clientError?.stack as string[];
    expect(stack.length).toBeGreaterThan(0);
    for (const frame of stack) expect(frame).toMatch(/\/assets\/[\w/.-]+\.js:\d+:\d+/);
    // Nothing the driver typed, nor the page's address.
    const logged = JSON.stringify(line);
    for (const typed of [email, '2025550143', 'Str0ng!Pass', journey.baseUrl]) expect(logged).not.toContain(typed);

    // The same fault again in the page's life: the driver is told again, the log is not.
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
    await expect.poll(() => page.locator('[role="status"]', { hasText: flowFile.messages.requestFailed }).count()).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(faultLines()).toHaveLength(1);
  });
});
