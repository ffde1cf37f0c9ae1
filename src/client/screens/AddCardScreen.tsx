/**
 * Add Card (/add-card): creates (or finds again) the driver's subscription, shows a loading
 * skeleton meanwhile, then the card form of the configured provider: Stripe's Payment Element,
 * or the local sandbox's form. Before confirming, the subscription and payment intent ids are
 * stored (the flow's `store`), since Stripe may leave the page for a 3-D Secure check and come
 * back to /success.
 */
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import toast from 'react-hot-toast';
import { useLocation } from 'wouter';
import { lookupIn, resolveNextStep, type ScreenStep } from '../../shared/flow.js';
import { callApi } from '../api.js';
import { appConfig } from '../config.js';
import { callByName, flow, routeOf } from '../flow.js';
import { Layout } from '../Layout.js';
import { paymentErrorMessage, type PaymentOutcome } from '../payments/paymentOutcome.js';
import { SandboxCardForm } from '../payments/SandboxCardForm.js';
import { priceText } from '../price.js';
import { applyStore } from '../storage.js';

// Stripe.js and its React bindings: only for drivers who reach this screen with Stripe configured.
const StripeCardForm = lazy(() => import('../payments/StripeCardForm.js'));

type Subscription = { state: 'loading' } | { state: 'failed' } | { state: 'ready'; answer: Record<string, unknown> };

function CardSkeleton({ label }: { label: string }) {
  return (
    <div className="card-skeleton" role="status" aria-live="polite" aria-busy="true">
      <span className="visually-hidden">{label}</span>
      <span className="skeleton-line skeleton-label" />
      <span className="skeleton-line skeleton-input" />
      <span className="skeleton-row">
        <span className="skeleton-line skeleton-input" />
        <span className="skeleton-line skeleton-input" />
      </span>
      <span className="skeleton-line skeleton-button" />
    </div>
  );
}

export function AddCardScreen({ step }: { step: ScreenStep }) {
  const [, navigate] = useLocation();
  const [subscription, setSubscription] = useState<Subscription>({ state: 'loading' });
  const [busy, setBusy] = useState(false);
  const started = useRef(false);
  const card = step.card;
  const payments = appConfig().payments;

  const load = useCallback(async () => {
    setSubscription({ state: 'loading' });
    const result = await callApi(callByName(step.call ?? ''));
    if (!result.ok) {
      toast.error(result.message ?? flow.messages.requestFailed);
      setSubscription({ state: 'failed' });
      return;
    }
    setSubscription({ state: 'ready', answer: result.data });
  }, [step.call]);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void load();
  }, [load]);

  if (!card) return null;
  const answer = subscription.state === 'ready' ? subscription.answer : undefined;
  const clientSecret = typeof answer?.clientSecret === 'string' ? answer.clientSecret : '';

  const pay = async (confirm: () => Promise<PaymentOutcome>) => {
    setBusy(true);
    try {
      const lookup = lookupIn({ response: answer });
      applyStore(step.store, lookup);
      const outcome = await confirm();
      if (!outcome.ok) {
        toast.error(paymentErrorMessage(outcome.error, card.errors));
        return;
      }
      navigate(routeOf(resolveNextStep(step.next, lookup)?.to ?? flow.start));
    } catch {
      toast.error(card.errors.thrown);
    } finally {
      setBusy(false);
    }
  };

  const formProps = {
    clientSecret,
    submitLabel: card.submit,
    busy,
    onPay: pay,
    returnUrl: new URL(routeOf(resolveNextStep(step.next, lookupIn({}))?.to ?? flow.start), window.location.origin).href,
    onUnavailable: () => toast.error(card.errors.thrown),
  };

  return (
    <Layout>
      <section className="card-screen">
        {step.content?.image && <img className="message-image" src={step.content.image} alt="" width={240} height={180} />}
        <h1>{step.content?.title}</h1>
        <p className="card-price">{priceText(appConfig().subscriptionPlan)}</p>
        {subscription.state === 'loading' && <CardSkeleton label={card.loading} />}
        {subscription.state === 'failed' && (
          <button type="button" className="button button-secondary" onClick={() => void load()}>
            {card.retry}
          </button>
        )}
        {subscription.state === 'ready' &&
          (payments.provider === 'stripe' ? (
            <Suspense fallback={<CardSkeleton label={card.loading} />}>
              <StripeCardForm {...formProps} publishableKey={payments.publishableKey} />
            </Suspense>
          ) : (
            <SandboxCardForm {...formProps} confirmUrl={payments.confirmUrl} />
          ))}
      </section>
    </Layout>
  );
}
