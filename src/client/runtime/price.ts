import type { Locale } from '../../shared/locales.js';
import type { AppConfig } from '../../shared/appConfig.js';

/**
 * "$199/week" from the server's plan, in the page's language ("$199/semana"): whole dollars
 * without cents, otherwise with them, and the interval named by Intl. The market is the US, so
 * the amount is written as in the US in either language.
 */
export function priceText(plan: AppConfig['subscriptionPlan'], locale: Locale): string {
  const whole = plan.amountCents % 100 === 0;
  const amount = new Intl.NumberFormat(`${locale}-US`, {
    style: 'currency',
    currency: plan.currency.toUpperCase(),
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: whole ? 0 : 2,
  }).format(plan.amountCents / 100);
  return `${amount}/${intervalName(plan.interval, locale)}`;
}

/** "week" in the language ("semana"); a unit Intl does not know stays as written. */
function intervalName(interval: string, locale: Locale): string {
  try {
    const parts = new Intl.NumberFormat(locale, { style: 'unit', unit: interval, unitDisplay: 'long' }).formatToParts(1);
    return parts.find((part) => part.type === 'unit')?.value ?? interval;
  } catch (error) {
    // Intl's RangeError: a unit it does not know.
    if (error instanceof RangeError) return interval;
    throw error;
  }
}
