/**
 * What confirming a card payment came to, for either card form (Stripe's Payment Element or the
 * local sandbox's), and the words a driver reads for it (spec §8 "Payment").
 */
export type PaymentOutcome = { ok: true } | { ok: false; error: { type?: string; message?: string } };

/** The card screen's three error texts, from the flow (`card.errors`). */
export interface PaymentErrorTexts {
  provider: string;
  unexpected: string;
  thrown: string;
}

/**
 * Spec §8: a card or validation error shows the provider's message (else `provider`), any other
 * error `unexpected`. A thrown error is the caller's to show: `thrown`.
 */
export function paymentErrorMessage(error: { type?: string; message?: string }, texts: PaymentErrorTexts): string {
  if (error.type === 'card_error' || error.type === 'validation_error') return error.message || texts.provider;
  return texts.unexpected;
}

/** The props both card forms take: the payment to confirm and the screen's way to run it. */
export interface CardFormProps {
  clientSecret: string;
  submitLabel: string;
  busy: boolean;
  /** Runs `confirm` with the screen's busy state, storage and toasts around it. */
  onPay: (confirm: () => Promise<PaymentOutcome>) => Promise<void>;
  /** Where the provider sends the driver back after an off-page check (3-D Secure). */
  returnUrl: string;
  /** The card provider could not be loaded at all. */
  onUnavailable: () => void;
}
