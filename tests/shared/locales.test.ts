import { TranslatableString } from '@rjsf/utils';
import { describe, expect, it } from 'vitest';
import { copyPointers } from '../../src/shared/copy.js';
import { localize, preferredLocale, translationProblems } from '../../src/shared/locales.js';
import { translatorFor } from '../../src/shared/rjsfStrings.js';

describe('the language a request or a browser asks for', () => {
  it('is the first of its preferences Onramp speaks, by its primary tag', () => {
    expect(preferredLocale('es-MX,es;q=0.9,en;q=0.8')).toBe('es');
    expect(preferredLocale('fr-FR, es;q=0.5')).toBe('es');
    expect(preferredLocale(['de-DE', 'ES-us'])).toBe('es');
  });

  it('follows the q-values, whatever the order written', () => {
    expect(preferredLocale('en;q=0.4, es;q=0.9')).toBe('es');
    expect(preferredLocale('es;q=0, en')).toBe('en');
  });

  it('is English when it names none Onramp speaks, or nothing at all', () => {
    expect(preferredLocale('fr, de;q=0.5')).toBe('en');
    expect(preferredLocale('')).toBe('en');
    expect(preferredLocale(undefined)).toBe('en');
    expect(preferredLocale('*;q=1')).toBe('en');
  });
});

describe('a file localized', () => {
  const source = { title: 'Sign up', fields: [{ label: 'Email' }, { label: 'Phone' }], id: 'signup' };

  it('has each translated text in place of its English, and keeps every other value', () => {
    const translations = { '/title': { en: 'Sign up', es: 'Registro' }, '/fields/1/label': { en: 'Phone', es: 'Teléfono' } };
    expect(localize(source, translations, 'es')).toEqual({ title: 'Registro', fields: [{ label: 'Email' }, { label: 'Teléfono' }], id: 'signup' });
    expect(source.title).toBe('Sign up');
  });

  it('keeps the English of a text whose English changed since it was translated: never a stale translation', () => {
    const translations = { '/title': { en: 'Sign up now', es: 'Regístrate ya' }, '/fields/0/label': { en: 'Email', es: 'Correo' } };
    expect(localize(source, translations, 'es')).toEqual({ ...source, fields: [{ label: 'Correo' }, { label: 'Phone' }] });
  });

  it('keeps the English of a text with an empty translation, or one of nothing but spaces, and never writes where the source has no text', () => {
    const translations = {
      '/title': { en: 'Sign up', es: '' },
      '/fields/0/label': { en: 'Email', es: ' \n' },
      '/missing': { en: 'x', es: 'y' },
      '/fields': { en: 'x', es: 'y' },
    };
    expect(localize(source, translations, 'es')).toEqual(source);
  });
});

describe('the translations of a file', () => {
  const schema = {
    type: 'object',
    properties: { title: { type: 'string', copy: true }, id: { type: 'string' }, items: { type: 'array', items: { $ref: '#/$defs/text' } } },
    $defs: { text: { type: 'string', copy: true } },
  };
  const source = { title: 'Your code is {code}', id: 'signup', items: ['One', 'Two'] };

  it('are of the strings its schema marks as copy, in the order of the file', () => {
    expect(copyPointers(source, schema)).toEqual(['/title', '/items/0', '/items/1']);
  });

  it('report a text with none, one made from English since changed, other placeholders, and one of a text that is gone', () => {
    const copy = copyPointers(source, schema);
    const problems = translationProblems(
      source,
      copy,
      {
        '/title': { en: 'Your code is {code}', es: 'Tu código es {codigo}' },
        '/items/0': { en: 'Uno', es: 'Uno' },
        '/gone': { en: 'Gone', es: 'Ido' },
      },
      'es',
    );
    expect(problems.map(({ entry, key, what, toWrite }) => [entry, key, what, toWrite ?? false])).toEqual([
      ['/title', 'es', "the placeholders differ from the English's: {codigo} here, {code} in English", false],
      ['/items/0', 'en', 'the English changed since this was translated: it was "Uno", it is now "One"; Spanish readers see the new English meanwhile', true],
      ['/items/1', undefined, 'no Spanish text for /items/1 ("Two"): Spanish readers see the English meanwhile', true],
      ['/gone', undefined, 'the source file has no text at /gone', false],
    ]);
  });
});

describe('rjsf’s own strings', () => {
  const translations = {
    '/RemoveButton': { en: 'Remove', es: 'Quitar' },
    '/OptionPrefix': { en: 'Option %1', es: 'Opción %1' },
    '/AddButton': { en: 'Add', es: ' ' },
  };

  it('are said in the form’s language, with their values, and in rjsf’s English where none is translated', () => {
    const translate = translatorFor('es', translations);
    expect(translate(TranslatableString.RemoveButton)).toBe('Quitar');
    expect(translate(TranslatableString.OptionPrefix, ['2'])).toBe('Opción 2');
    expect(translate(TranslatableString.AddButton)).toBe('Add');
  });
});
