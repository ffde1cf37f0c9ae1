// A content folder (ONRAMP_CONTENT_DIR) as docs/operations.md describes it: schemas/, flows/ and
// tests/fixtures/, its translations (locales/) optional. Without them, or with some of their files
// missing, the app builds and serves in English for what is missing, and the build says so in one
// line, never with esbuild's stack trace ("Cannot read file: …/locales/es/rjsf.json"). And a text
// reworded in English, its Spanish not written again yet: Spanish readers see the new English of
// that text (the built form, the server's answers, the page in Chromium), never the stale Spanish.
//
// The build and the server read their content folder once, when src/node/projectFiles.ts is first
// imported: this file imports nothing of them statically, and loads them once the variable names
// the copy.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { scaled } from '../support/machineSpeed.js';

/** Each test builds the client and the server's drawing of the steps (build/ssr) from its copy: longer than a test's usual minute on a busy machine. */
const BUILDS = { timeout: scaled(120_000) };

const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const contentDirBefore = process.env.ONRAMP_CONTENT_DIR;
const copies: string[] = [];

/**
 * A copy of the content without locales/, or with locales/ less the files named, and with the
 * English edits given; built as `npm start` builds it, and served.
 */
async function buildAndServe(withoutTranslations: string[] | 'all', edits: { file: string; replace: string; with: string }[] = []) {
  const content = mkdtempSync(join(tmpdir(), 'onramp-content-'));
  copies.push(content);
  for (const path of ['schemas', 'flows', 'tests/fixtures']) cpSync(join(PROJECT, path), join(content, path), { recursive: true });
  if (withoutTranslations !== 'all') {
    cpSync(join(PROJECT, 'locales'), join(content, 'locales'), { recursive: true });
    for (const file of withoutTranslations) rmSync(join(content, 'locales', 'es', file));
  }
  for (const edit of edits) {
    const path = join(content, edit.file);
    const text = readFileSync(path, 'utf8');
    expect(text).toContain(edit.replace);
    writeFileSync(path, text.replace(edit.replace, edit.with));
  }
  process.env.ONRAMP_CONTENT_DIR = content;
  vi.resetModules();
  const warnings: string[] = [];
  const warn = vi.spyOn(console, 'warn').mockImplementation((line: unknown) => void warnings.push(String(line)));
  try {
    const { buildDist } = await import('../../src/node/builds/dist.js');
    await (await buildDist()).dispose();
  } finally {
    warn.mockRestore();
  }
  const support = await import('../support/server.js');
  const server = await support.startTestServer({ staticDir: join(content, 'dist') });
  return { content, warnings, server, support };
}

/**
 * Whether the scripts the Spanish /signup page preloads (the step page, the Spanish sign-up form)
 * hold each text, as a driver reads it (the minified scripts write "ú" as "\\xFA").
 */
function spanishSignupHolds(content: string, texts: string[]): Record<string, boolean> {
  const preloads = JSON.parse(readFileSync(join(content, 'dist', 'route-preloads.json'), 'utf8')) as Record<string, Record<string, string[]>>;
  const scripts = preloads['/signup']?.es ?? [];
  expect(scripts.length).toBeGreaterThan(0);
  const code = scripts
    .map((script) => readFileSync(join(content, 'dist', script), 'utf8'))
    .join('\n')
    .replace(/\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4}))/g, (_escape, byte: string | undefined, unit: string | undefined) =>
      String.fromCharCode(Number.parseInt(byte ?? unit ?? '', 16)),
    );
  return Object.fromEntries(texts.map((text) => [text, code.includes(text)]));
}

afterAll(() => {
  for (const content of copies) rmSync(content, { recursive: true, force: true });
  if (contentDirBefore === undefined) delete process.env.ONRAMP_CONTENT_DIR;
  else process.env.ONRAMP_CONTENT_DIR = contentDirBefore;
  // The server tests share their modules within a worker: the next file must read the project's content again.
  vi.resetModules();
});

describe('a content folder without locales/', () => {
  it('builds with one warning line and serves the app in English to a Spanish reader', BUILDS, async () => {
    const { content, warnings, server, support } = await buildAndServe('all');
    try {
      expect(warnings).toEqual([
        "warning: there is no locales/es/: drivers reading Spanish see Onramp in English — run npm run locales, then write each text's translation",
      ]);
      const page = await server.app.inject({ method: 'GET', url: '/signup', headers: { accept: 'text/html', 'accept-language': 'es' } });
      expect(page.statusCode).toBe(200);
      expect(
        spanishSignupHolds(content, ['Password must contain at least one uppercase letter', 'La contraseña debe tener al menos una letra mayúscula']),
      ).toEqual({
        'Password must contain at least one uppercase letter': true,
        'La contraseña debe tener al menos una letra mayúscula': false,
      });
      // The server's answers too.
      const missing = await server.app.inject({ method: 'GET', url: '/driver/nothing', headers: { 'accept-language': 'es' } });
      expect(support.json(missing)).toEqual({ message: 'Not found.' });
    } finally {
      await server.close();
    }
  });
});

describe('a content folder with some translation files missing', () => {
  it('names them in one warning line, shows their texts in English and the others in Spanish', BUILDS, async () => {
    const { content, warnings, server, support } = await buildAndServe(['signup.schema.json', 'rjsf.json', 'server-messages.json']);
    try {
      expect(warnings).toEqual([
        "warning: locales/es/ has no rjsf.json, server-messages.json, signup.schema.json: drivers reading Spanish see those texts in English — run npm run locales, then write each text's translation",
      ]);
      // The sign-up's UI schema still has its Spanish.
      const uiSpanish = JSON.parse(readFileSync(join(PROJECT, 'locales', 'es', 'signup.ui.json'), 'utf8')) as Record<string, { es?: string }>;
      const someSpanish = Object.values(uiSpanish).find((entry) => typeof entry.es === 'string' && entry.es.length > 8)!.es!;
      expect(
        spanishSignupHolds(content, [
          'Password must contain at least one uppercase letter',
          'La contraseña debe tener al menos una letra mayúscula',
          someSpanish,
        ]),
      ).toEqual({
        'Password must contain at least one uppercase letter': true,
        'La contraseña debe tener al menos una letra mayúscula': false,
        [someSpanish]: true,
      });
      const missing = await server.app.inject({ method: 'GET', url: '/driver/nothing', headers: { 'accept-language': 'es' } });
      expect(support.json(missing)).toEqual({ message: 'Not found.' });
    } finally {
      await server.close();
    }
  });
});

describe('an English reword whose Spanish is not written yet', () => {
  it('shows Spanish readers the new English of that text, never the stale translation, and the Spanish of the others', {
    ...BUILDS,
    tags: ['chromium'],
  }, async () => {
    const { content, warnings, server, support } = await buildAndServe(
      [],
      [
        { file: 'schemas/signup.schema.json', replace: '"pattern": "Phone number must be valid."', with: '"pattern": "Please enter a valid US phone number."' },
        { file: 'flows/server-messages.json', replace: '"notFound": "Not found."', with: '"notFound": "There is nothing at this address."' },
      ],
    );
    try {
      expect(warnings).toEqual([]);
      // The page: the Spanish sign-up form holds the new English, not the Spanish made from the old.
      expect(
        spanishSignupHolds(content, [
          'Please enter a valid US phone number.',
          'El número de teléfono debe ser válido.',
          'El número de teléfono debe tener 10 dígitos',
        ]),
      ).toEqual({
        'Please enter a valid US phone number.': true,
        'El número de teléfono debe ser válido.': false,
        'El número de teléfono debe tener 10 dígitos': true,
      });
      // The server checks the same form in Spanish: the reworded message in English, the other in Spanish.
      const { createEmulatorUser } = await import('../support/identity.js');
      const response = await server.app.inject({
        method: 'POST',
        url: '/auth/driverEmailSignUp',
        headers: { 'accept-language': 'es' },
        payload: support.signUpPayload(await createEmulatorUser(), '12'),
      });
      expect(response.statusCode).toBe(400);
      expect(support.json(response)).toMatchObject({
        message: 'Please enter a valid US phone number.',
        errors: { phoneNo: ['Please enter a valid US phone number.', 'El número de teléfono debe tener 10 dígitos'] },
      });
      // And the server's own answers.
      const missing = await server.app.inject({ method: 'GET', url: '/driver/nothing', headers: { 'accept-language': 'es' } });
      expect(support.json(missing)).toEqual({ message: 'There is nothing at this address.' });

      // What a driver whose phone reads Spanish sees, in Chromium.
      const baseURL = await server.app.listen({ host: '127.0.0.1', port: 0 });
      const { launchTestChromium } = await import('../../tools/chromium.js');
      const browser = await launchTestChromium();
      try {
        const page = await browser.newPage({ baseURL, locale: 'es-MX', viewport: { width: 390, height: 844 } });
        await page.goto('/signup');
        await page.getByRole('heading', { name: 'Registrarse', exact: true }).waitFor();
        await page.locator('#root_phoneNo').fill('12');
        await page.getByRole('button', { name: 'Registrarse' }).click();
        await expect(page.locator('#root_email__error').textContent()).resolves.toBe('Ingresa tu correo electrónico');
        const phoneError = await page.locator('#root_phoneNo__error').textContent();
        expect(phoneError).toContain('Please enter a valid US phone number.');
        expect(phoneError).not.toContain('El número de teléfono debe ser válido.');
      } finally {
        await browser.close();
      }
    } finally {
      await server.close();
    }
  });
});

describe('a form given an "allOf", an "anyOf", an array and a time of day', () => {
  it('builds with those parts of rjsf, which the browser’s scripts leave out while no form calls for them', BUILDS, async () => {
    const { content, warnings, server } = await buildAndServe(
      [],
      [
        {
          file: 'schemas/signup.schema.json',
          replace: '"additionalProperties": false,',
          with: '"additionalProperties": false, "allOf": [{ "required": ["email"] }], "anyOf": [{ "required": ["email"] }, { "required": ["phoneNo"] }],',
        },
        {
          file: 'schemas/signup.schema.json',
          replace: '"referalCode": { "$ref": "common.schema.json#/$defs/referralCode" },',
          with: '"referalCode": { "$ref": "common.schema.json#/$defs/referralCode" }, "languages": { "type": "array", "items": { "type": "string" } }, "pickupTime": { "type": "string", "format": "time" },',
        },
        { file: 'schemas/signup.ui.json', replace: '"referalCode",', with: '"referalCode", "languages", "pickupTime",' },
      ],
    );
    try {
      expect(warnings).toEqual([]);
      const metafile = JSON.parse(readFileSync(join(content, 'build', 'metafile.json'), 'utf8')) as {
        outputs: Record<string, { inputs: Record<string, unknown> }>;
      };
      const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
      for (const part of [
        '@x0k/json-schema-merge/',
        '@rjsf/core/lib/components/fields/ArrayField.js',
        '@rjsf/core/lib/components/fields/MultiSchemaField.js',
        '@rjsf/utils/lib/schema/getClosestMatchingOption.js',
        // The sanitizing of the values for a schema whose "allOf" or "anyOf" may change what it asks for.
        '@rjsf/utils/lib/schema/sanitizeDataForNewSchema.js',
        // rjsf's widget for a "format": "time".
        '@rjsf/core/lib/components/widgets/TimeWidget.js',
      ]) {
        expect(
          inputs.some((input) => input.includes(part)),
          part,
        ).toBe(true);
      }
      // Those no form calls for are still left out.
      expect(inputs.filter((input) => input.startsWith('rjsf-part-left-out:')).sort()).toEqual(
        [
          'altDateWidgets',
          'checkboxesWidget',
          'colorWidget',
          'fileWidget',
          'layoutGrid',
          'omitExtraData',
          'radioWidget',
          'rangeWidget',
          'ratingWidget',
          'replacedByOurs',
          'textareaWidget',
        ].map((part) => `rjsf-part-left-out:${part}`),
      );
      const page = (await server.app.inject({ method: 'GET', url: '/signup', headers: { accept: 'text/html' } })).body;
      expect(page).toContain('id="root_email"');
      expect(page).toMatch(/<input[^>]*id="root_pickupTime"[^>]*type="time"|<input[^>]*type="time"[^>]*id="root_pickupTime"/);
    } finally {
      await server.close();
    }
  });
});

describe('a content folder not built yet', () => {
  it('answers its pages 503 with the build that serves them: the one with the same ONRAMP_CONTENT_DIR', async () => {
    const content = mkdtempSync(join(tmpdir(), 'onramp-content-'));
    copies.push(content);
    for (const path of ['schemas', 'flows', 'locales']) cpSync(join(PROJECT, path), join(content, path), { recursive: true });
    process.env.ONRAMP_CONTENT_DIR = content;
    vi.resetModules();
    const support = await import('../support/server.js');
    const { DIST } = await import('../../src/node/projectFiles.js');
    expect(DIST).toBe(join(content, 'dist'));
    const server = await support.startTestServer({ staticDir: DIST });
    try {
      const page = await server.app.inject({ method: 'GET', url: '/signup', headers: { accept: 'text/html' } });
      expect(page.statusCode).toBe(503);
      expect(support.json(page)).toEqual({ message: 'The web app is not built yet. Run `npm run build` with the same ONRAMP_CONTENT_DIR, then reload.' });
    } finally {
      await server.close();
    }
  });
});
