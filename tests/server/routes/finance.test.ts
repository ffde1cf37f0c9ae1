import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { signInEmulatorUser } from '../../support/identity.js';
import type { ReviewDriver } from '../../../src/shared/review.js';
import {
  approvedDriver,
  bankValues,
  bearer,
  json,
  outbox,
  paySubscription,
  post,
  startTestServer,
  type TestDriver,
  type TestServer,
} from '../../support/server.js';

let server: TestServer;
let app: FastifyInstance;

beforeAll(async () => {
  server = await startTestServer();
  app = server.app;
});
afterAll(async () => {
  await server.close();
});

/** A driver with a paid subscription: the sandbox's card form, then POST /subscription/validateStripeSub. */
const paid = (driver: TestDriver) => paySubscription(app, driver);

const MINUTE = 60_000;

describe('POST /finance/banks', () => {
  /** The account number of the bank form's valid fixture (tests/fixtures/addBank/valid/complete.json). */
  const ACCOUNT = '000123456789';
  const bank = bankValues;
  let driver: TestDriver;
  beforeAll(async () => {
    driver = await approvedDriver(server);
    await paid(driver);
  });

  it('refuses a driver whose subscription is not paid with 403', async () => {
    const unpaid = await approvedDriver(server);
    const response = await post(app, '/finance/banks', unpaid.token, bank());
    expect(response.statusCode).toBe(403);
    expect(json(response)).toEqual({ message: 'Please activate your subscription before adding a bank account.' });
  });

  it.each([
    [{ routingNumber: '111000026' }, 'routingNumber', 'Routing number is not valid.'],
    [{ routingNumber: '12345' }, 'routingNumber', 'Routing number is not valid.'],
    [{ routingNumber: '11100002a' }, 'routingNumber', 'Routing number must be a numeric value.'],
    [{ routingNumber: '1110000250' }, 'routingNumber', 'Routing Number must be maximum 9 characters long.'],
    [{ routingNumber: '' }, 'routingNumber', 'Please enter your routing number.'],
    [{ accountNumber: '12345678901' }, 'accountNumber', 'Account Number must be minimum 12 characters long.'],
    [{ accountNumber: '123456789012345678' }, 'accountNumber', 'Account number must be maximum 17 characters long.'],
    [{ accountNumber: '12345678901a' }, 'accountNumber', 'Account number must be a numeric value.'],
    [{ accountNumber: undefined }, 'accountNumber', 'Please enter your account number.'],
    [{ accountHolderName: '   ' }, 'accountHolderName', 'Please provide your account holder name.'],
  ])('refuses %o with 400 and "%s"', async (change, field, message) => {
    const response = await post(app, '/finance/banks', driver.token, bank(change));
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message, errors: { [field]: [message] } });
  });

  it('saves the account, answers only its last four digits, and stores the number encrypted', async () => {
    const response = await post(app, '/finance/banks', driver.token, bank());
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ success: true, data: { accountHolderName: 'Dana Driver', accountNumberLast4: '6789', routingNumber: '111000025' } });
    expect(response.body).not.toContain(ACCOUNT);
    // The bank step's answers, the account number sealed on its own.
    const { rows } = await server.db.query<{ text: string; answers: { accountNumber: { $sealed: string; $masked: string } } }>(
      "SELECT row_to_json(a)::text AS text, answers FROM step_answers a WHERE driver_id = $1 AND step = 'addBank'",
      [driver.driverId],
    );
    expect(rows[0]!.text).not.toContain(ACCOUNT);
    expect(rows[0]!.answers).toMatchObject({ accountHolderName: 'Dana Driver', routingNumber: '111000025', accountNumber: { $masked: '•••••6789' } });
    expect(Buffer.from(rows[0]!.answers.accountNumber.$sealed, 'base64').includes(Buffer.from(ACCOUNT))).toBe(false);
    expect(server.logs.join('\n')).not.toContain(ACCOUNT);
    // Administrators see whose account it is, masked: shown with the driver, not judged.
    const shown = await app.inject({ method: 'GET', url: `/admin/drivers/${driver.driverId}`, headers: bearer(server.reviewer.key) });
    expect(shown.statusCode).toBe(200);
    expect(shown.body).not.toContain(ACCOUNT);
    const account = json<ReviewDriver>(shown).steps.find((step) => step.step === 'addBank');
    expect(account).toMatchObject({ reviewed: false, schema: { name: 'bank' } });
    expect(Object.fromEntries(account!.fields.map((field) => [field.field, [field.kind, field.value]]))).toEqual({
      accountHolderName: ['text', 'Dana Driver'],
      accountNumber: ['sensitive', '•••••6789'],
      routingNumber: ['text', '111000025'],
    });
  });

  const storedLast4 = async (driverId: string) =>
    (
      await server.db.query<{ last4: string }>(
        "SELECT right(answers -> 'accountNumber' ->> '$masked', 4) AS last4 FROM step_answers WHERE driver_id = $1 AND step = 'addBank'",
        [driverId],
      )
    ).rows;

  it('adds the first account with any session, however old its sign-in', async () => {
    const other = await approvedDriver(server);
    await paid(other);
    server.clock.advance(20 * MINUTE);
    try {
      expect((await post(app, '/finance/banks', other.token, bank())).statusCode).toBe(200);
    } finally {
      server.clock.reset();
    }
  });

  it('replaces the account only after a sign-in minutes old, and tells the driver by email', async () => {
    // The session from the sign-up's email code carries that sign-up's sign-in: 6 minutes on, it is not recent.
    server.clock.advance(6 * MINUTE);
    const stale = await post(app, '/finance/banks', driver.token, bank({ accountNumber: '99988877766655' }));
    server.clock.reset();
    expect(stale.statusCode).toBe(403);
    expect(json(stale)).toEqual({ message: 'For your security, please sign in again to change your bank account.', reason: 'signInAgain' });
    expect(await storedLast4(driver.driverId)).toEqual([{ last4: '6789' }]);

    const signedIn = await app.inject({ method: 'POST', url: '/auth/signIn', payload: { idToken: await signInEmulatorUser(driver.email) } });
    const fresh = json<{ token: string }>(signedIn).token;
    const replaced = await post(app, '/finance/banks', fresh, bank({ accountNumber: '99988877766655' }));
    expect(replaced.statusCode).toBe(200);
    expect(await storedLast4(driver.driverId)).toEqual([{ last4: '6655' }]);
    await app.messaging.deliverDue();
    const notice = (await outbox(app)).find((entry) => entry.to === driver.email && 'notice' in entry);
    expect(notice).toMatchObject({ channel: 'email', notice: 'bankAccountChanged', subject: 'Your payout bank account was changed' });
    expect(notice && 'text' in notice ? notice.text : '').toContain('ending in 6655');
    expect(JSON.stringify(notice)).not.toContain('99988877766655');
  });
});
