/**
 * Add Card (/add-card): creates (or finds again) the driver's subscription, shows a loading
 * skeleton meanwhile, then the card form of the configured provider: Stripe's Payment Element,
 * or the local sandbox's form. Before confirming, the subscription and payment intent ids are
 * stored (the flow's `store`), since Stripe may leave the page for a 3-D Secure check and come
 * back to /success.
 */
import { currentLocale } from '../runtime/locale.js';
import { lazy, Suspense, useState } from 'react';
import { toast } from '../ui/toast.js';
import useSWR from 'swr';
import { useLocation } from 'wouter';
import { ALREADY_PAID_REASON } from '../../shared/apiAnswers.js';
import { lookupIn, resolveNextStep, type ScreenStep } from '../../shared/flow.js';
import { callApi } from '../runtime/api.js';
import { appConfig } from '../runtime/config.js';
import { callByName, flow, routeOf } from '../runtime/flow.js';
import { Layout } from '../ui/Layout.js';
import { paymentErrorMessage, type PaymentOutcome } from './addCard/paymentOutcome.js';
import { SandboxCardForm } from './addCard/SandboxCardForm.js';
import { priceText } from '../runtime/price.js';
import { dataOf, READ_ONCE, useOpening, type RequestError } from '../runtime/reads.js';
import { applyStore, getItem } from '../runtime/storage.js';
import { followResume, type Navigation } from '../runtime/stepFlow.js';
import { reportFault } from '../runtime/faults.js';

// Stripe.js and its React bindings: only for drivers who reach this screen with Stripe configured.
const StripeCardForm = lazy(() => import('./addCard/StripeCardForm.js').then((module) => ({ default: module.StripeCardForm })));

const readSubscription = ([callName]: readonly [string, number]) => dataOf(callApi(callByName(callName)));

/** The card form's shape while it loads, box for box (the sandbox's notice too), so nothing jumps when it arrives. */
function CardSkeleton({ label }: { label: string }) {
  return (
    <div className="card-skeleton" role="status" aria-live="polite" aria-busy="true">
      <span className="visually-hidden">{label}</span>
      {appConfig().payments.provider === 'sandbox' && <span className="skeleton-line skeleton-notice" />}
      <span className="skeleton-line skeleton-label" />
      <span className="skeleton-line skeleton-input" />
      <span className="skeleton-row">
        <span className="skeleton-field">
          <span className="skeleton-line skeleton-label" />
          <span className="skeleton-line skeleton-input" />
        </span>
        <span className="skeleton-field">
          <span className="skeleton-line skeleton-label" />
          <span className="skeleton-line skeleton-input" />
        </span>
      </span>
      <span className="skeleton-line skeleton-button" />
    </div>
  );
}

/**
 * Where a driver who paid already goes: where the flow's resume table sends a returning driver,
 * by their status read afresh with the resume screen's call (the next step, /success, checks a
 * payment this page made).
 */
async function pastTheCard(): Promise<Navigation> {
  const statusCall = Object.values(flow.steps).find((each) => each.kind === 'screen' && each.screen === 'resume')?.call;
  const driverId = getItem('driver_id');
  if (!statusCall || !driverId) return { to: routeOf(flow.start) };
  const answer = await dataOf(callApi<{ data?: Record<string, unknown> }>(callByName(statusCall), {}, { id: driverId }), flow.messages.statusFailed);
  return followResume({ data: answer.data });
}

export function AddCardScreen({ step }: { step: ScreenStep }) {
  const [, navigate] = useLocation();
  // Asked afresh at each opening: the subscription may have changed since an earlier visit.
  const opening = useOpening();
  const {
    data: answer,
    isLoading,
    mutate,
  } = useSWR<Record<string, unknown>, RequestError>(step.call ? [step.call, opening] : null, readSubscription, {
    ...READ_ONCE,
    onError: (failed) => {
      // Paid already (back from the next step, or its address opened): no retry could help, so on.
      if (failed.failure.data?.reason === ALREADY_PAID_REASON) {
        toast.success(failed.message, { id: failed.message });
        void pastTheCard().then(
          (next) => navigate(next.to, { replace: true, state: next.state }),
          (unread: Error) => toast.error(unread.message),
        );
        return;
      }
      toast.error(failed.message);
    },
  });
  const [busy, setBusy] = useState(false);
  const card = step.card;
  const payments = appConfig().payments;

  if (!card) return null;
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
    } catch (error) {
      // The card provider's script threw rather than answered (its page unreachable), or our code failed (reported): the words for that case.
      reportFault(error);
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
        <p className="card-price">{priceText(appConfig().subscriptionPlan, currentLocale())}</p>
        {isLoading && <CardSkeleton label={card.loading} />}
        {!isLoading && !answer && (
          <button type="button" className="button button-secondary" onClick={() => void mutate()}>
            {card.retry}
          </button>
        )}
        {answer &&
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
