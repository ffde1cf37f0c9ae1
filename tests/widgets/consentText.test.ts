import { describe, expect, it } from 'vitest';
import { consentParts, isSafeHref } from '../../widgets/consentText';

const links = {
  terms: { label: 'Terms & Conditions', href: 'https://onramp.example/terms' },
  privacy: { label: 'Privacy Policy', href: 'https://onramp.example/privacy' },
};

describe('consentParts (the consent widget’s label)', () => {
  it('turns {key} placeholders into links from ui:options.links', () => {
    expect(consentParts('I accept the {terms} and the {privacy}.', links)).toEqual([
      { kind: 'text', text: 'I accept the ' },
      { kind: 'link', key: 'terms', label: 'Terms & Conditions', href: 'https://onramp.example/terms' },
      { kind: 'text', text: ' and the ' },
      { kind: 'link', key: 'privacy', label: 'Privacy Policy', href: 'https://onramp.example/privacy' },
      { kind: 'text', text: '.' },
    ]);
  });

  it('keeps text without placeholders as one run', () => {
    expect(consentParts('I agree to receive SMS notifications.', undefined)).toEqual([{ kind: 'text', text: 'I agree to receive SMS notifications.' }]);
  });

  it('shows a placeholder without a link as typed, so the typo is visible', () => {
    expect(consentParts('I accept the {term}.', links)).toEqual([{ kind: 'text', text: 'I accept the {term}.' }]);
  });

  it('never makes a link of a javascript: href', () => {
    const parts = consentParts('See {x}', { x: { label: 'this', href: 'javascript:alert(1)' } });
    expect(parts).toEqual([{ kind: 'text', text: 'See this' }]);
  });
});

describe('isSafeHref', () => {
  it('accepts http(s) and site-relative addresses only', () => {
    expect(isSafeHref('https://onramp.example/terms')).toBe(true);
    expect(isSafeHref('/terms')).toBe(true);
    expect(isSafeHref('//evil.example')).toBe(false);
    expect(isSafeHref('javascript:alert(1)')).toBe(false);
    expect(isSafeHref('data:text/html,hi')).toBe(false);
  });
});
