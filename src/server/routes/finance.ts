/**
 * The payout bank account (spec §2 Add Bank, §5 Bank). Validated with schemas/bank.schema.json,
 * as the form was; the account number is encrypted at rest and only its last four digits are
 * ever returned (DESIGN §5).
 */
import type { FastifyInstance } from 'fastify';
import { forbidden } from '../errors.js';

export const FINANCE_MESSAGES = {
  subscribeFirst: 'Please activate your subscription before adding a bank account.',
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
    // Steps in order: the bank account comes after the subscription (spec §4).
    if (rows[0]?.status !== 'approved' || !rows[0].is_subscription_paid) throw forbidden(FINANCE_MESSAGES.subscribeFirst);
    const { form } = reader.json('addBank', request);
    const accountNumber = String(form.accountNumber);
    const holder = String(form.accountHolderName).trim();
    const routingNumber = String(form.routingNumber);
    const last4 = accountNumber.slice(-4);
    const now = app.now();
    await app.db.query(
      `INSERT INTO bank_accounts (driver_id, account_holder_name, account_number_ciphertext, account_number_last4, routing_number, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (driver_id) DO UPDATE SET account_holder_name = $2, account_number_ciphertext = $3, account_number_last4 = $4,
         routing_number = $5, updated_at = $6`,
      [driverId, holder, app.cipher.encrypt(accountNumber, `bank-account:${driverId}`), last4, routingNumber, now],
    );
    return { success: true, data: { accountHolderName: holder, accountNumberLast4: last4, routingNumber } };
  });
}
