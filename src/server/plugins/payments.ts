import type { FastifyPluginAsync } from 'fastify';
import type { PaymentsConfig, SubscriptionPlan } from '../config.js';
import type { PaymentGateway } from '../payments/gateway.js';
import { createSandboxGateway } from '../payments/sandboxGateway.js';
import { sandboxPaymentRoutes } from '../routes/sandboxPayments.js';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    payments: PaymentGateway;
    /** The routes the gateway brings, registered with the API (routes/api.ts): the sandbox's confirm; none with Stripe. */
    paymentRoutes: FastifyPluginAsync | null;
  }
}

/**
 * The payment gateway configuration picks (docs/architecture.md, "The server, and the outside
 * services"): Stripe with a secret key, else the local sandbox and its confirm endpoint.
 */
export const paymentsPlugin = fp<{ payments: PaymentsConfig; plan: SubscriptionPlan }>(
  async (app, options) => {
    const { payments, plan } = options;
    if (payments.kind === 'stripe') {
      // Each provider's SDK is loaded only where it is configured: a local server never loads it.
      const { createStripeGateway } = await import('../payments/stripeGateway.js');
      app.decorate('payments', createStripeGateway(payments));
      app.decorate('paymentRoutes', null);
      return;
    }
    const sandbox = createSandboxGateway(app.db, plan, () => app.now());
    app.decorate('payments', sandbox);
    app.decorate('paymentRoutes', (api) => sandboxPaymentRoutes(api, { gateway: sandbox }));
  },
  { name: 'onramp-payments', decorators: { fastify: ['db', 'now'] } },
);
