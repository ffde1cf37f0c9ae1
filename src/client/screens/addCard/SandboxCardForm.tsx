/**
 * The local sandbox's card form (docs/architecture.md, "The server, and the outside services"), in
 * place of Stripe's Payment Element when no Stripe key is configured. It judges a card as the
 * sandbox provider does (src/shared/sandboxCard.ts), shows a field's message once touched or after
 * a submit, and confirms through the sandbox's endpoint, which answers as Stripe.js's
 * confirmPayment does.
 */
import { use, useId, useState, type ChangeEvent, type FormEvent } from 'react';
import { localize, type Locale, type Translations } from '../../../shared/locales.js';
import { cardErrors, digitsOf, MAX_CARD_DIGITS, sandboxPayments, type CardField, type SandboxCard, type SandboxPayments } from '../../../shared/sandboxCard.js';
import { request } from '../../runtime/api.js';
import { loadOnce, prepareWith, useLocale } from '../../runtime/locale.js';
import type { CardFormProps, PaymentOutcome } from './paymentOutcome.js';

/** "4242424242424242" → "4242 4242 4242 4242". */
const groupsOfFour = (digits: string) => digits.replace(/(\d{4})(?=\d)/g, '$1 ');
/** "1230" → "12 / 30"; the separator appears once the month is complete. */
const monthYear = (digits: string) => (digits.length > 2 ? `${digits.slice(0, 2)} / ${digits.slice(2)}` : digits);

const FORMAT: Record<CardField, (typed: string) => string> = {
  number: (typed) => groupsOfFour(digitsOf(typed).slice(0, MAX_CARD_DIGITS)),
  expiry: (typed) => monthYear(digitsOf(typed).slice(0, 4)),
  cvc: (typed) => digitsOf(typed).slice(0, 4),
};
const AUTOCOMPLETE: Record<CardField, string> = { number: 'cc-number', expiry: 'cc-exp', cvc: 'cc-csc' };
const FIELDS: CardField[] = ['number', 'expiry', 'cvc'];

/** Each translated language's words of the sandbox, in a chunk of their own. */
const TRANSLATIONS: Partial<Record<Locale, () => Promise<{ default: unknown }>>> = {
  es: () => import('../../../../locales/es/sandbox-payments.json'),
};
const loadedWords = new Map<string, Promise<SandboxPayments>>();
const wordsIn = (locale: Locale) =>
  loadOnce(loadedWords, locale, async () => localize(sandboxPayments, (await TRANSLATIONS[locale]?.())?.default as Translations | undefined, locale));
// On the card page, a language switched to brings the sandbox's words in it first.
prepareWith(wordsIn);

async function confirmWithSandbox(confirmUrl: string, clientSecret: string, card: SandboxCard): Promise<PaymentOutcome> {
  const result = await request(confirmUrl, { method: 'POST', body: { clientSecret, ...card } });
  if (result.ok) return { ok: true };
  const error = result.data?.error as { type?: string; message?: string } | undefined;
  // No answer at all (offline, timed out) is not the card's fault: "unexpected".
  return { ok: false, error: error ?? { type: 'api_connection_error', message: result.message } };
}

export function SandboxCardForm({ clientSecret, submitLabel, busy, onPay, confirmUrl }: CardFormProps & { confirmUrl: string }) {
  const id = useId();
  const [card, setCard] = useState<SandboxCard>({ number: '', expiry: '', cvc: '' });
  const [touched, setTouched] = useState<ReadonlySet<CardField>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const words = use(wordsIn(useLocale()));
  const errors = cardErrors(card, new Date(), words);
  const shown = (field: CardField) => (submitted || touched.has(field) ? errors[field] : undefined);
  const touch = (field: CardField) => setTouched((current) => (current.has(field) ? current : new Set(current).add(field)));

  const change = (field: CardField) => (event: ChangeEvent<HTMLInputElement>) => {
    setCard((current) => ({ ...current, [field]: FORMAT[field](event.target.value) }));
    touch(field);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    const invalid = FIELDS.find((field) => errors[field]);
    if (invalid) {
      document.getElementById(`${id}-${invalid}`)?.focus();
      return;
    }
    void onPay(() => confirmWithSandbox(confirmUrlOrThrow(confirmUrl), clientSecret, card));
  };

  return (
    <form className="step-form card-form" onSubmit={submit} noValidate>
      <p className="card-form-notice">{words.notice}</p>
      <div className="card-fields">
        {FIELDS.map((field) => {
          const inputId = `${id}-${field}`;
          const message = shown(field);
          return (
            <div key={field} className={`form-group card-field card-field-${field}`}>
              <label htmlFor={inputId}>{words.labels[field]}</label>
              <input
                id={inputId}
                className="form-control"
                type="text"
                inputMode="numeric"
                autoComplete={AUTOCOMPLETE[field]}
                placeholder={words.placeholders[field]}
                value={card[field]}
                onChange={change(field)}
                onBlur={() => touch(field)}
                aria-invalid={message ? true : undefined}
                aria-describedby={message ? `${inputId}-error` : undefined}
                disabled={busy}
              />
              {message && (
                <p id={`${inputId}-error`} className="field-error" role="alert">
                  {message}
                </p>
              )}
            </div>
          );
        })}
      </div>
      <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
        {busy && <span className="spinner" aria-hidden="true" />}
        {submitLabel}
      </button>
    </form>
  );
}

/** A missing endpoint is a broken configuration: thrown, so the driver reads the "thrown" message. */
function confirmUrlOrThrow(confirmUrl: string): string {
  if (!confirmUrl) throw new Error('The payment sandbox has no endpoint.');
  return confirmUrl;
}
