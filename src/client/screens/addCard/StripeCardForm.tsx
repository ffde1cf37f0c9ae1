/**
 * Stripe's Payment Element (docs/performance.md, "The first visit": `@stripe/stripe-js/pure`, so
 * Stripe.js loads only when this form mounts, on /add-card, and only when a publishable key is
 * configured). The card data stays inside Stripe's iframes; `confirmPayment` returns here when no
 * extra check is needed and goes to `returnUrl` (/success) after one, such as 3-D Secure.
 */
import { useLocale } from '../../runtime/locale.js';
import { Elements, PaymentElement, useElements, useStripe } from '@stripe/react-stripe-js';
import { loadStripe } from '@stripe/stripe-js/pure';
import { useState, type FormEvent } from 'react';
import type { CardFormProps } from './paymentOutcome.js';

function PaymentForm({ submitLabel, busy, onPay, returnUrl }: CardFormProps) {
  const stripe = useStripe();
  const elements = useElements();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void onPay(async () => {
      if (!stripe || !elements) throw new Error('Stripe.js is not loaded.');
      const { error } = await stripe.confirmPayment({ elements, confirmParams: { return_url: returnUrl }, redirect: 'if_required' });
      return error ? { ok: false, error } : { ok: true };
    });
  };
  return (
    <form className="card-form" onSubmit={submit}>
      <PaymentElement />
      <button type="submit" className="button button-primary" disabled={busy || !stripe || !elements} aria-busy={busy}>
        {busy && <span className="spinner" aria-hidden="true" />}
        {submitLabel}
      </button>
    </form>
  );
}

export function StripeCardForm(props: CardFormProps & { publishableKey: string }) {
  const { publishableKey, clientSecret, onUnavailable } = props;
  const [stripe] = useState(() =>
    // Stripe.js could not be loaded (blocked, offline): the screen says the card form is unavailable.
    loadStripe(publishableKey).catch(() => {
      onUnavailable();
      return null;
    }),
  );
  // Stripe's form in the page's language: Elements takes its locale once, so a new language makes a new one.
  const locale = useLocale();
  return (
    <Elements key={locale} stripe={stripe} options={{ clientSecret, locale }}>
      <PaymentForm {...props} />
    </Elements>
  );
}
