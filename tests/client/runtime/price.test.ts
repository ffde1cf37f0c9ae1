import { describe, expect, it } from 'vitest';
import { priceText } from '../../../src/client/runtime/price.js';

describe('priceText', () => {
  it('shows whole dollars without cents: $199/week', () =>
    expect(priceText({ amountCents: 19_900, currency: 'usd', interval: 'week' }, 'en')).toBe('$199/week'));
  it('shows cents when there are some', () => expect(priceText({ amountCents: 19_950, currency: 'usd', interval: 'week' }, 'en')).toBe('$199.50/week'));
  it('names the interval in Spanish, the amount written as in the US', () => {
    expect(priceText({ amountCents: 19_900, currency: 'usd', interval: 'week' }, 'es')).toBe('$199/semana');
    expect(priceText({ amountCents: 19_950, currency: 'usd', interval: 'week' }, 'es')).toBe('$199.50/semana');
  });
});
