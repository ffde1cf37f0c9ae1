import { describe, expect, it } from 'vitest';
import { paymentErrorMessage } from '../../../../src/client/screens/addCard/paymentOutcome.js';
import { loadFlow } from '../../../../src/node/projectFiles.js';

const addCard = loadFlow().steps.addCard;
const texts = addCard?.kind === 'screen' && addCard.card ? addCard.card.errors : { provider: '', unexpected: '', thrown: '' };

describe('paymentErrorMessage (spec §8 Payment)', () => {
  it('shows the provider’s message for a card or validation error', () => {
    expect(paymentErrorMessage({ type: 'card_error', message: 'Your card was declined.' }, texts)).toBe('Your card was declined.');
    expect(paymentErrorMessage({ type: 'validation_error', message: 'Your card number is incomplete.' }, texts)).toBe('Your card number is incomplete.');
  });
  it('falls back to "Something went wrong." when the provider gives none', () => {
    expect(paymentErrorMessage({ type: 'card_error' }, texts)).toBe('Something went wrong.');
  });
  it('shows "An unexpected error occured." for any other error', () => {
    expect(paymentErrorMessage({ type: 'api_connection_error', message: 'Network down' }, texts)).toBe('An unexpected error occured.');
    expect(paymentErrorMessage({}, texts)).toBe('An unexpected error occured.');
  });
  it('has "Invalid or No Data Provided." for a thrown error', () => expect(texts.thrown).toBe('Invalid or No Data Provided.'));
});
