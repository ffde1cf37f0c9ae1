/**
 * The card form of the local payment sandbox (docs/architecture.md, "The server, and the outside
 * services"), shared by the browser's form and the sandbox provider on the server so both judge a
 * card alike, as Stripe's Payment Element and Stripe's API do. Words and test cards are data:
 * flows/sandbox-payments.json.
 */
import sandboxFile from '../../flows/sandbox-payments.json';
import type { SandboxPayments, TestCard } from './generated/sandboxPayments.js';

export type CardField = keyof SandboxPayments['labels'];
export interface SandboxCard {
  number: string;
  /** "MM / YY" as typed; only its digits count. */
  expiry: string;
  cvc: string;
}
export type { SandboxPayments, TestCard };

// Checked against flows/sandbox-payments.schema.json (npm run lint), whose generated type this is.
// In English: a page in another language passes its own words (translated, locales/).
export const sandboxPayments: SandboxPayments = sandboxFile as SandboxPayments;

export const digitsOf = (text: string) => text.replace(/\D/g, '');

/** The Luhn check every card number passes. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** Card numbers are 13 to 19 digits long. */
const MIN_CARD_DIGITS = 13;
export const MAX_CARD_DIGITS = 19;

/** The first problem of each field, or none: a card that may be sent to the provider; in the language of `words`. */
export function cardErrors(card: SandboxCard, today: Date, words: SandboxPayments = sandboxPayments): Partial<Record<CardField, string>> {
  const { messages } = words;
  const errors: Partial<Record<CardField, string>> = {};
  const number = digitsOf(card.number);
  if (number.length < MIN_CARD_DIGITS) errors.number = messages.numberIncomplete;
  else if (number.length > MAX_CARD_DIGITS || !passesLuhn(number)) errors.number = messages.numberInvalid;

  const expiry = digitsOf(card.expiry);
  if (expiry.length < 4) errors.expiry = messages.expiryIncomplete;
  else {
    const month = Number(expiry.slice(0, 2));
    const year = 2000 + Number(expiry.slice(2, 4));
    if (expiry.length > 4 || month < 1 || month > 12) errors.expiry = messages.expiryInvalid;
    // A card is good until the end of its expiry month.
    else if (year * 12 + month < today.getFullYear() * 12 + today.getMonth() + 1) errors.expiry = messages.expiryPast;
  }

  const cvc = digitsOf(card.cvc);
  if (cvc.length < 3 || cvc.length > 4) errors.cvc = messages.cvcIncomplete;
  return errors;
}

/** What the sandbox does with a card that passed `cardErrors`, told in the language of `words`. */
export function testCardOutcome(card: SandboxCard, words: SandboxPayments = sandboxPayments): TestCard {
  return words.cards[digitsOf(card.number)] ?? { outcome: 'declined', code: 'card_declined', message: words.messages.notTestCard };
}
