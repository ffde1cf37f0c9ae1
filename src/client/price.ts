import type { AppConfig } from './config.js';

/** "$199/week" from the server's plan: whole dollars without cents, otherwise with them. */
export function priceText(plan: AppConfig['subscriptionPlan']): string {
  const whole = plan.amountCents % 100 === 0;
  const amount = new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: plan.currency.toUpperCase(),
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: whole ? 0 : 2,
  }).format(plan.amountCents / 100);
  return `${amount}/${plan.interval}`;
}
