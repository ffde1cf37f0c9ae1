// A GET of a form step's page answers it already drawn (src/client/app/serverRender.tsx): the
// form's fields and their labels, in the language asked for, with what the browser needs to
// hydrate it as JSON (no inline script). Needs the build (`npm run build`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';
import { DRAFT_STEP_SEPARATOR, DRAFTS_COOKIE, SENT_AWAY_COOKIE, TOKEN_COOKIE } from '../../src/shared/storageKeys.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ staticDir: join(PROJECT_ROOT, 'dist') });
});
afterAll(() => server.close());

const get = (url: string, language = 'en', cookie?: string) =>
  server.app.inject({ method: 'GET', url, headers: { accept: 'text/html', 'accept-language': language, ...(cookie ? { cookie } : {}) } });

/** The sign-up's UI schema: each field's label, in English and (from its translation file) in Spanish. */
const signupUi = JSON.parse(readFileSync(join(PROJECT_ROOT, 'schemas', 'signup.ui.json'), 'utf8')) as Record<string, unknown> & { 'ui:order': string[] };
const spanishUi = JSON.parse(readFileSync(join(PROJECT_ROOT, 'locales', 'es', 'signup.ui.json'), 'utf8')) as Record<string, { es: string }>;
interface FieldUi {
  'ui:title'?: string;
  'ui:options'?: { text?: string; links?: Record<string, { label: string }> };
}
/** What labels a field: its title, or a consent's text (around the links it names) and its links' labels. */
function labelsOf(field: string): string[] {
  const ui = signupUi[field] as FieldUi;
  if (ui['ui:title']) return [ui['ui:title']];
  const options = ui['ui:options'] ?? {};
  const words = (options.text ?? '').split(/\{\w+\}/).filter((part) => part.trim() !== '');
  return [...words, ...Object.values(options.links ?? {}).map((link) => link.label)];
}
/** In the HTML, an apostrophe and an ampersand are written as entities. */
const asHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/'/g, '&#x27;');

describe('a step drawn by the server', () => {
  it('GET /signup shows the sign-up form: each field with its label, the heading and the submit', async () => {
    const response = await get('/signup');
    expect(response.statusCode).toBe(200);
    const html = response.body;
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<h1 id="root__title" class="step-title">Sign up</h1>');
    for (const field of signupUi['ui:order']) {
      expect(html, field).toMatch(new RegExp(`id="root_${field}"`));
      for (const label of labelsOf(field)) expect(html, field).toContain(asHtml(label));
    }
    expect(html).toContain('Sign Up</button>');
    expect(html).not.toContain('class="page-loading"');
    const data = /<script type="application\/json" id="server-page">(.*?)<\/script>/.exec(html)?.[1];
    expect(JSON.parse(data ?? 'null')).toMatchObject({ step: 'signup', route: '/signup', locale: 'en', schema: 'signup' });
  });

  it('sends a step the browser fills itself undrawn, for the browser to draw filled: its draft, a signed-in driver’s answers to a reviewed step', async () => {
    const undrawn = (html: string) => html.includes('class="page-loading"') && !html.includes('id="server-page"');
    const drafts = `${DRAFTS_COOKIE}=${['signup', 'completeProfile'].join(DRAFT_STEP_SEPARATOR)}`;
    for (const url of ['/signup', '/complete-profile']) expect(undrawn((await get(url, 'en', drafts)).body), url).toBe(true);
    expect(undrawn((await get('/sign-in', 'en', drafts)).body)).toBe(false);
    // A reviewed step (the profile) with a driver's token; the sign-up, not reviewed, drawn all the same.
    const signedIn = `${TOKEN_COOKIE}=x`;
    expect(undrawn((await get('/complete-profile', 'en', signedIn)).body)).toBe(true);
    expect(undrawn((await get('/signup', 'en', signedIn)).body)).toBe(false);
    expect(undrawn((await get('/complete-profile')).body)).toBe(false);
  });

  it('draws it in the language the browser asks for', async () => {
    const html = (await get('/signup', 'es-MX,es;q=0.9')).body;
    expect(html).toContain('<html lang="es">');
    for (const field of ['email', 'phoneNo', 'password']) expect(html, field).toContain(asHtml(spanishUi[`/${field}/ui:title`]?.es ?? ''));
    expect(html).not.toContain('>Email<');
  });

  it('sends the same drawing again (kept per build and language), and a path of no form step undrawn', async () => {
    const [first, second] = [await get('/sign-in'), await get('/sign-in')];
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    for (const url of ['/not-a-step', '/summary']) {
      const html = (await get(url)).body;
      expect(html, url).toContain('class="page-loading"');
      expect(html, url).not.toContain('id="server-page"');
    }
  });
});

describe('a guarded step', () => {
  const visit = (url: string, headers: Record<string, string> = {}) => server.app.inject({ method: 'GET', url, headers: { accept: '*/*', ...headers } });
  const signedIn = { cookie: `${TOKEN_COOKIE}=x` };

  it('sends a visitor without the token cookie where its guard sends, 303, naming the step for the guard’s toast', async () => {
    for (const [url, step] of [
      ['/add-vehicle', 'addVehicle'],
      ['/add-card', 'addCard'],
      ['/add-bank', 'addBank'],
    ]) {
      const response = await visit(url!);
      expect(response.statusCode, url).toBe(303);
      expect(response.headers.location, url).toBe('/signup');
      expect(response.headers['set-cookie'], url).toBe(`${SENT_AWAY_COOKIE}=${step}; Path=/; Max-Age=60; SameSite=Strict`);
      expect(response.body, url).toBe('');
      expect((await visit(url!, signedIn)).statusCode, url).toBe(200);
    }
  });

  it('draws a step whose guard only the browser can decide (what the device keeps), and a visit from another site, which carries no cookie', async () => {
    for (const url of ['/verify-otp-email', '/verify-otp-phone']) {
      const response = await visit(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toContain('id="server-page"');
    }
    const fromElsewhere = await visit('/add-bank', { 'sec-fetch-site': 'cross-site' });
    expect(fromElsewhere.statusCode).toBe(200);
    expect(fromElsewhere.headers['set-cookie']).toBeUndefined();
  });

  it('draws a code page in words that need no value the device keeps', async () => {
    const html = (await visit('/verify-otp-phone')).body;
    expect(html).toContain('Enter the 4-digit code we sent you by text.');
    expect(html).not.toContain('sent by text to');
    expect((await visit('/verify-otp-email')).body).toContain('Enter the 4-digit code we sent to your email.');
    expect((await visit('/verify-otp-phone', { 'accept-language': 'es' })).body).toContain(
      'Ingresa el código de 4 dígitos que te enviamos por mensaje de texto.',
    );
  });
});
