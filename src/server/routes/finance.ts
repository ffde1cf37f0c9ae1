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
import type { Queryable } from '../db/db.js';
import { saveStepAnswers } from '../lib/answers.js';
import { type RouteTable, urlOf } from '../lib/routeTable.js';

/** The payout account, at its call of the flow (lib/routeTable.ts). */
export const FINANCE_ROUTES = {
  addBank: { method: 'POST', call: 'addBank' },
} as const satisfies RouteTable;

export async function financeRoutes(app: FastifyInstance) {
  const reader = app.callReader;
  app.addHook('preHandler', app.requireDriver);

  app.post(urlOf(FINANCE_ROUTES.addBank, reader.flow), { schema: { response: { 200: { $ref: 'api#/$defs/bankAdded' } } } }, async (request) => {
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
    // Told by webhook with the change: the step and the account, never its numbers.
    const told = async (tx: Queryable, replaced: boolean) => {
      await app.webhooks.emit(tx, driverId, 'driver.step.sent', { step });
      await app.webhooks.emit(tx, driverId, 'bank_account.added', { replaced });
    };
    // The first account is simply added; the row decides, so two first requests at once can't both count as "first".
    const added = await app.db.transaction(async (tx) => {
      const first = await saveStepAnswers(tx, app.cipher, saved, { firstOnly: true });
      if (first) await told(tx, false);
      return first;
    });
    if (!added) {
      if (!app.sessions.isFresh(request.token!.holder)) throw refusal(403, 'finance.signInToReplace', { reason: SIGN_IN_AGAIN_REASON });
      // The driver is told in the same transaction as the change: a notice can't be lost, nor sent for a change that wasn't saved.
      await app.db.transaction(async (tx) => {
        await saveStepAnswers(tx, app.cipher, saved);
        await app.messaging.notify(tx, driverId, 'bankAccountChanged', { accountLast4: last4 });
        await told(tx, true);
      });
    }
    return { success: true, data: { accountHolderName: holder, accountNumberLast4: last4, routingNumber } };
  });
}
