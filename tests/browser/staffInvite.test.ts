// @module-tag chromium
// Staff onboarding in headless Chromium: an owner adds a person, who gets an invitation email (the
// local outbox), chooses a password from its link on a phone and is signed in; the link works
// once; a wrong password later is on the owner's staff list and the audit record; an owner resends
// and revokes another person's invitation; a mangled link is told what a spent one is.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxEntry } from '../../src/server/messaging/localOutbox.js';
import { uniqueEmail } from '../support/identity.js';
import { staffAccount, type TestStaff } from '../support/server.js';
import { axeViolations, contextForTest, expectToast, PHONE_VIEWPORT, screenshot, signInAsStaff, startJourney, type Journey } from './support.js';

const DESKTOP = { width: 1280, height: 900 };
const PASSWORD = 'a long passphrase of mine';
const INVALID_LINK = 'This invitation link has expired, was used already, or was replaced by a newer one. Ask an owner to send you a new invitation.';

let journey: Journey;
let owner: TestStaff & { user: { email: string; password: string } };
let ownerPage: Page;
const invitee = uniqueEmail('invitee');

beforeAll(async () => {
  journey = await startJourney();
  owner = await staffAccount(journey.server.app, ['owner']);
});
afterAll(() => journey?.close());

const section = (page: Page, name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name, exact: true });
const staffRow = (page: Page, email: string) => page.locator('li.admin-staff-member', { hasText: email });

/** The admin page's path and fragment of the newest invitation link emailed to `email`, as its reader follows it. */
async function invitationLink(email: string): Promise<string> {
  let link: string | undefined;
  await expect
    .poll(async () => {
      const outbox = (await (await fetch(`${journey.baseUrl}/dev/outbox`)).json()) as OutboxEntry[];
      const entry = outbox.find((each) => each.to === email && 'notice' in each && each.notice === 'staffInvitation');
      link = entry && /Choose your password here: (\S+)/.exec(entry.text)?.[1];
      return link;
    })
    .toBeDefined();
  const url = new URL(link!);
  return `${url.pathname}${url.hash}`;
}

/** The screen fits its width, and axe finds nothing serious on it. */
async function expectSound(page: Page, width: number) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  expect((await axeViolations(page)).filter((violation) => /^\S+ \((serious|critical)\)/.test(violation))).toEqual([]);
}

describe('a person an owner adds', () => {
  it('is invited by email when the owner adds them, and shown as invited', async () => {
    // The owner's page stays open from test to test, as their laptop does.
    ownerPage = await (await journey.browser.newContext({ viewport: DESKTOP, baseURL: journey.baseUrl })).newPage();
    await ownerPage.goto('/admin');
    await signInAsStaff(ownerPage, owner.user);
    await section(ownerPage, 'Staff').click();
    await ownerPage.getByLabel('Email').fill(invitee);
    await ownerPage.getByRole('button', { name: 'Add', exact: true }).click();
    await expectToast(ownerPage, `${invitee} was added and emailed an invitation to choose a password.`);
    await staffRow(ownerPage, invitee)
      .getByText(/^Invited .+ · the link works until /)
      .waitFor();
    await expectSound(ownerPage, DESKTOP.width);
    await screenshot(ownerPage, '68-staff-invited-desktop');
  });

  it('chooses a password from the email’s link on a phone and is signed in; the link works once', async () => {
    const link = await invitationLink(invitee);
    const phone = await (await contextForTest(journey, PHONE_VIEWPORT)).newPage();
    await phone.goto(link);
    await phone.getByRole('heading', { name: 'Choose your password' }).waitFor();
    await phone.getByText(`For ${invitee}`).waitFor();
    // The token is gone from the address bar (and so from the history) at once.
    expect(new URL(phone.url()).hash).toBe('');
    await expectSound(phone, PHONE_VIEWPORT.width);
    await screenshot(phone, '69-staff-choose-password-phone');
    await phone.getByLabel('New password').fill(PASSWORD);
    await phone.getByRole('button', { name: 'Set password and sign in' }).click();
    await phone.getByText(`${invitee} · Reviewer`).waitFor();

    const again = await (await contextForTest(journey, DESKTOP)).newPage();
    await again.goto(link);
    await expect(again.getByRole('alert').textContent()).resolves.toBe(INVALID_LINK);
    await screenshot(again, '70-staff-invitation-used-desktop');

    // Signed out, they sign in with the password they chose; a wrong one is refused.
    await phone.getByRole('button', { name: 'Sign out' }).click();
    await phone.getByText('You are signed out.').waitFor();
    await signInAsStaff(phone, { email: invitee, password: 'not the password at all' });
    await expect(phone.getByRole('alert').textContent()).resolves.toBe('The email or password is not right.');
    await signInAsStaff(phone, { email: invitee, password: PASSWORD });
    await phone.getByText(`${invitee} · Reviewer`).waitFor();
  });

  it('shows the owner the person active, their failed sign-in, and the failure on the audit record', async () => {
    await ownerPage.reload();
    await section(ownerPage, 'Staff').click();
    const row = staffRow(ownerPage, invitee);
    await row.getByText(/^Active · last signed in /).waitFor();
    await row.getByText('1 failed sign-in in the last 24 hours: see the audit record.').waitFor();
    await expect(row.getByRole('button', { name: /invitation/ }).count()).resolves.toBe(0);

    await section(ownerPage, 'Audit record').click();
    await ownerPage.getByLabel('What').selectOption('staff.sign-in-failed');
    await ownerPage.getByLabel('Who (email)').fill(invitee);
    await ownerPage.getByRole('button', { name: 'Show', exact: true }).click();
    const rows = ownerPage.locator('table.admin-audit tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)));
    expect(cells).toEqual([[invitee, 'staff.sign-in-failed', '—', '127.0.0.1']]);
  });

  it('lets the owner resend and revoke an invitation, on a phone too', async () => {
    const other = uniqueEmail('other');
    const phone = await (await contextForTest(journey, PHONE_VIEWPORT)).newPage();
    await phone.goto('/admin');
    await signInAsStaff(phone, owner.user);
    await section(phone, 'Staff').click();
    await phone.getByLabel('Email').fill(other);
    await phone.getByRole('button', { name: 'Add', exact: true }).click();
    await expectToast(phone, `${other} was added and emailed an invitation to choose a password.`);
    const first = await invitationLink(other);

    const row = staffRow(phone, other);
    await row.getByRole('button', { name: 'Resend invitation' }).click();
    await expectToast(phone, `A new invitation was sent to ${other}.`);
    await expect.poll(() => invitationLink(other)).not.toBe(first);
    await row.getByRole('button', { name: 'Revoke invitation' }).click();
    await expectToast(phone, `The invitation of ${other} was revoked.`);
    await row.getByText(/^Invitation of .+ revoked$/).waitFor();
    await expect(row.getByRole('button', { name: 'Revoke invitation' }).count()).resolves.toBe(0);
    await expectSound(phone, PHONE_VIEWPORT.width);
    await screenshot(phone, '71-staff-invitation-revoked-phone');

    const follower = await (await contextForTest(journey, PHONE_VIEWPORT)).newPage();
    await follower.goto(await invitationLink(other));
    await expect(follower.getByRole('alert').textContent()).resolves.toBe(INVALID_LINK);
  });

  it('tells the follower of a mangled link what it tells the follower of a spent one', async () => {
    // A mail reader cut the link short: its follower is told the link no longer works, not about its format.
    const link = await invitationLink(invitee);
    const page = await (await contextForTest(journey, PHONE_VIEWPORT)).newPage();
    await page.goto(link.slice(0, -10));
    await expect(page.getByRole('alert').textContent()).resolves.toBe(INVALID_LINK);
  });
});
