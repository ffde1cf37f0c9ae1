/**
 * The payout bank account (spec §2 Add Bank, §5 Bank). Validated with schemas/bank.schema.json, as
 * the form was; the account number is encrypted at rest and only its last four digits are ever
 * returned (docs/architecture.md, "Security rules the code keeps"). Replacing an account is where a
 * stolen session would send the money: it needs a sign-in minutes old, and the driver is told by
 * email.
 */
import { refusal } from '../serverMessages.js';
import type { FastifyInstance } from 'fastify';
import { SIGN_IN_AGAIN_REASON } from '../../shared/apiAnswers.js';
import { saveStepAnswers } from '../lib/answers.js';

export async function financeRoutes(app: FastifyInstance) {
  const reader = app.callReader;
  app.addHook('preHandler', app.requireDriver);

  app.post(reader.routePath('addBank'), { schema: { response: { 200: { $ref: 'api#/$defs/bankAdded' } } } }, async (request) => {
    const driverId = request.driverId;
    const { rows } = await app.db.query<{ status: string; is_subscription_paid: boolean }>('SELECT status, is_subscription_paid FROM drivers WHERE id = $1', [
      driverId,
    ]);
    const driver = rows[0];
    // Steps in order: the bank account comes after the subscription (spec §4).
    if (driver?.status !== 'approved' || !driver.is_subscription_paid) throw refusal(403, 'finance.subscribeFirst');
    const values = reader.json('addBank', request);
    const { form, step, schema } = values;
    if (!step || !schema) throw new Error('addBank is a form step');
    const accountNumber = String(form.accountNumber);
    const holder = String(form.accountHolderName).trim();
    const routingNumber = String(form.routingNumber);
    const last4 = accountNumber.slice(-4);
    const now = app.now();
    // Stored as the step's answers, the account number sealed (it is marked sensitive).
    const saved = { driverId, step, schema, form: { ...form, accountHolderName: holder }, files: {}, now };
    // The first account is simply added; the row decides, so two first requests at once can't both count as "first".
    const added = await saveStepAnswers(app.db, app.cipher, saved, { firstOnly: true });
    if (!added) {
      if (!app.sessions.isFresh(request.token!.holder)) throw refusal(403, 'finance.signInToReplace', { reason: SIGN_IN_AGAIN_REASON });
      // The driver is told in the same transaction as the change: a notice can't be lost, nor sent for a change that wasn't saved.
      await app.db.transaction(async (tx) => {
        await saveStepAnswers(tx, app.cipher, saved);
        await app.messaging.notify(tx, driverId, 'bankAccountChanged', { accountLast4: last4 });
      });
    }
    return { success: true, data: { accountHolderName: holder, accountNumberLast4: last4, routingNumber } };
  });
}
