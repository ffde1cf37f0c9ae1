// @vitest-environment happy-dom
// A step the server drew (runtime/serverPage.ts): the page's data read from its JSON script, and
// what the driver typed into the drawn form before the scripts ran, read from its inputs and kept.
import { afterEach, describe, expect, it } from 'vitest';
import { followTypingIn, forgetTypedBeforeScripts, serverPage, typedBeforeScriptsRan, typedWhileHydrating } from '../../../src/client/runtime/serverPage.js';

afterEach(() => {
  forgetTypedBeforeScripts();
  document.body.innerHTML = '';
});

/** A drawn form as rjsf draws it: each input's id is root_<field>. */
function drawnForm(): HTMLElement {
  document.body.innerHTML = `<div id="root"><form>
    <input id="root_firstName" />
    <input id="root_age" type="number" />
    <input id="root_terms" type="checkbox" />
    <input id="root_news" type="checkbox" checked />
    <select id="root_state"><option value=""></option><option value="NJ">New Jersey</option></select>
    <input id="root_photo" type="file" />
    <input id="root_secret" type="hidden" value="x" />
    <input id="search" value="not a field" />
  </form></div>`;
  return document.getElementById('root') as HTMLElement;
}
const input = (id: string) => document.getElementById(id) as HTMLInputElement;

describe('the page the server drew (serverPage)', () => {
  it('reads the page’s data from its JSON script, and none when the page was not drawn', () => {
    expect(serverPage()).toBeNull();
    const page = { step: 'signup', route: '/signup', locale: 'en', schema: 'signup', today: '2026-12-04' };
    document.body.innerHTML = `<script type="application/json" id="server-page">${JSON.stringify(page)}</script>`;
    expect(serverPage()).toEqual(page);
  });
});

describe('what was typed into the drawn form before the scripts ran', () => {
  it('is nothing when the page was not drawn', () => {
    expect(typedBeforeScriptsRan()).toEqual({});
    expect(typedWhileHydrating()).toEqual({});
  });

  it('reads each field as the form keeps it: a number as a number, a checkbox changed as its state; no empty, file or hidden input', () => {
    const root = drawnForm();
    input('root_firstName').value = 'Ana';
    input('root_age').value = '42';
    input('root_terms').checked = true;
    input('root_news').checked = false;
    (document.getElementById('root_state') as HTMLSelectElement).value = 'NJ';
    followTypingIn(root);
    expect(typedBeforeScriptsRan()).toEqual({ firstName: 'Ana', age: 42, terms: true, news: false, state: 'NJ' });
  });

  it('is read once: later changes (hydration setting an input back) don’t change it', () => {
    const root = drawnForm();
    input('root_firstName').value = 'Ana';
    followTypingIn(root);
    expect(typedBeforeScriptsRan()).toEqual({ firstName: 'Ana' });
    input('root_firstName').value = '';
    expect(typedBeforeScriptsRan()).toEqual({ firstName: 'Ana' });
  });

  it('follows each key typed while the scripts start, newest value by field, until the first form is on the page', () => {
    const root = drawnForm();
    followTypingIn(root);
    input('root_firstName').value = 'An';
    input('root_firstName').dispatchEvent(new Event('input', { bubbles: true }));
    input('root_firstName').value = 'Ana';
    input('root_firstName').dispatchEvent(new Event('input', { bubbles: true }));
    input('search').dispatchEvent(new Event('input', { bubbles: true }));
    expect(typedWhileHydrating()).toEqual({ firstName: 'Ana' });
    forgetTypedBeforeScripts();
    input('root_firstName').value = 'Anabel';
    input('root_firstName').dispatchEvent(new Event('input', { bubbles: true }));
    expect(typedWhileHydrating()).toEqual({});
    expect(typedBeforeScriptsRan()).toEqual({});
  });
});
