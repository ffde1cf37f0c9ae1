import { describe, expect, it } from 'vitest';
import { cardErrors, passesLuhn, testCardOutcome } from '../../src/shared/sandboxCard.js';

const today = new Date(2026, 10, 22); // 22 November 2026
const card = (change: Partial<{ number: string; expiry: string; cvc: string }> = {}) => ({
  number: '4242 4242 4242 4242',
  expiry: '12 / 30',
  cvc: '123',
  ...change,
});

describe('passesLuhn', () => {
  it.each(['4242424242424242', '4000000000000002', '4000000000009995', '5555555555554444'])('accepts %s', (digits) => expect(passesLuhn(digits)).toBe(true));
  it.each(['4242424242424241', '1234567812345678', ''])('rejects "%s"', (digits) => expect(passesLuhn(digits)).toBe(false));
});

describe('cardErrors (the sandbox card form, judged alike in the browser and the server)', () => {
  it('finds nothing wrong with a test card, a future expiry and a CVC', () => expect(cardErrors(card(), today)).toEqual({}));
  it('says an incomplete or mistyped number', () => {
    expect(cardErrors(card({ number: '4242 4242' }), today)).toEqual({ number: 'Your card number is incomplete.' });
    expect(cardErrors(card({ number: '4242 4242 4242 4241' }), today)).toEqual({ number: 'Your card number is invalid.' });
  });
  it('takes a card until the end of its expiry month, and refuses the month before', () => {
    expect(cardErrors(card({ expiry: '11 / 26' }), today)).toEqual({});
    expect(cardErrors(card({ expiry: '10 / 26' }), today)).toEqual({ expiry: "Your card's expiration date is in the past." });
  });
  it('says an incomplete or impossible expiry, and a short CVC', () => {
    expect(cardErrors(card({ expiry: '1' }), today)).toEqual({ expiry: "Your card's expiration date is incomplete." });
    expect(cardErrors(card({ expiry: '13 / 30' }), today)).toEqual({ expiry: "Your card's expiration date is invalid." });
    expect(cardErrors(card({ cvc: '12' }), today)).toEqual({ cvc: "Your card's security code is incomplete." });
  });
});

describe('testCardOutcome', () => {
  it('pays with 4242 4242 4242 4242 and declines the decline test cards with their messages', () => {
    expect(testCardOutcome(card())).toEqual({ outcome: 'succeeded' });
    expect(testCardOutcome(card({ number: '4000 0000 0000 0002' }))).toEqual({
      outcome: 'declined',
      code: 'card_declined',
      message: 'Your card was declined.',
    });
    expect(testCardOutcome(card({ number: '4000000000009995' }))).toEqual({
      outcome: 'declined',
      code: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
    });
  });
  it('declines any other card, as test mode does', () => {
    expect(testCardOutcome(card({ number: '5555 5555 5555 4444' })).outcome).toBe('declined');
  });
});
