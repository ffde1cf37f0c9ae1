/**
 * The payout bank account (spec §2 Add Bank, §5 Bank). Validated with schemas/bank.schema.json,
 * as the form was; the account number is encrypted at rest and only its last four digits are
 * ever returned (DESIGN §5). Replacing an account is where a stolen session would send the money:
 * it needs a sign-in minutes old, and the driver is told by email.
 */
import type { FastifyInstance } from 'fastify';
import { forbidden, signInAgain } from '../errors.js';

export const FINANCE_MESSAGES = {
  subscribeFirst: 'Please activate your subscription before adding a bank account.',
  signInToReplace: 'For your security, please sign in again to change your bank account.',
} as const;

export async function financeRoutes(app: FastifyInstance) {
  const reader = app.callReader;
  app.addHook('preHandler', app.requireDriver);

  app.post(reader.routePath('addBank'), async (request) => {
    const driverId = request.driverId;
    const { rows } = await app.db.query<{ status: string; is_subscription_paid: boolean }>(
      'SELECT status, is_subscription_paid FROM drivers WHERE id = $1',
      [driverId],
    );
    const driver = rows[0];
    // Steps in order: the bank account comes after the subscription (spec §4).
    if (driver?.status !== 'approved' || !driver.is_subscription_paid) throw forbidden(FINANCE_MESSAGES.subscribeFirst);
    const { form } = reader.json('addBank', request);
    const accountNumber = String(form.accountNumber);
    const holder = String(form.accountHolderName).trim();
    const routingNumber = String(form.routingNumber);
    const last4 = accountNumber.slice(-4);
    const values = [driverId, holder, app.cipher.encrypt(accountNumber, `bank-account:${driverId}`), last4, routingNumber, app.now()];
    // The first account is simply added; the row decides, so two first requests at once can't both count as "first".
    const added = await app.db.query(
      `INSERT INTO bank_accounts (driver_id, account_holder_name, account_number_ciphertext, account_number_last4, routing_number, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (driver_id) DO NOTHING RETURNING driver_id`,
      values,
    );
    if (added.rows.length === 0) {
      if (!app.sessions.isFresh(request.token!.holder)) throw signInAgain(403, FINANCE_MESSAGES.signInToReplace);
      // The driver is told in the same transaction as the change: a notice can't be lost, nor sent for a change that wasn't saved.
      await app.db.transaction(async (tx) => {
        await tx.query(
          `UPDATE bank_accounts SET account_holder_name = $2, account_number_ciphertext = $3, account_number_last4 = $4,
             routing_number = $5, updated_at = $6 WHERE driver_id = $1`,
          values,
        );
        await app.messaging.notify(tx, driverId, 'bankAccountChanged', { accountLast4: last4 });
      });
    }
    return { success: true, data: { accountHolderName: holder, accountNumberLast4: last4, routingNumber } };
  });
}
