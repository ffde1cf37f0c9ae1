// A content folder (ONRAMP_CONTENT_DIR) as the README describes it: schemas/, flows/ and
// tests/fixtures/, its translations (locales/) optional. Without them, or with some of their files
// missing, the app builds and serves in English for what is missing, and the build says so in one
// line, never with esbuild's stack trace ("Cannot read file: …/locales/es/rjsf.json").
//
// The build and the server read their content folder once, when src/node/projectFiles.ts is first
// imported: this file imports nothing of them statically, and loads them once the variable names
// the copy.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const contentDirBefore = process.env.ONRAMP_CONTENT_DIR;
const copies: string[] = [];

/** A copy of the content without locales/, or with locales/ less the files named; built as `npm start` builds it, and served. */
async function buildAndServe(withoutTranslations: string[] | 'all') {
  const content = mkdtempSync(join(tmpdir(), 'onramp-content-'));
  copies.push(content);
  for (const path of ['schemas', 'flows', 'tests/fixtures']) cpSync(join(PROJECT, path), join(content, path), { recursive: true });
  if (withoutTranslations !== 'all') {
    cpSync(join(PROJECT, 'locales'), join(content, 'locales'), { recursive: true });
    for (const file of withoutTranslations) rmSync(join(content, 'locales', 'es', file));
  }
  process.env.ONRAMP_CONTENT_DIR = content;
  vi.resetModules();
  const warnings: string[] = [];
  const warn = vi.spyOn(console, 'warn').mockImplementation((line: unknown) => void warnings.push(String(line)));
  try {
    const { buildDist } = await import('../../src/node/build.js');
    await (await buildDist()).dispose();
  } finally {
    warn.mockRestore();
  }
  const support = await import('../support/server.js');
  const server = await support.startTestServer({ staticDir: join(content, 'dist') });
  return { content, warnings, server, support };
}

/** The scripts the Spanish /signup page preloads (the step page, the Spanish sign-up form), as one text. */
function spanishSignupScripts(content: string): string {
  const preloads = JSON.parse(readFileSync(join(content, 'dist', 'route-preloads.json'), 'utf8')) as Record<string, Record<string, string[]>>;
  const scripts = preloads['/signup']?.es ?? [];
  expect(scripts.length).toBeGreaterThan(0);
  return scripts.map((script) => readFileSync(join(content, 'dist', script), 'utf8')).join('\n');
}

afterAll(() => {
  for (const content of copies) rmSync(content, { recursive: true, force: true });
  if (contentDirBefore === undefined) delete process.env.ONRAMP_CONTENT_DIR;
  else process.env.ONRAMP_CONTENT_DIR = contentDirBefore;
  // The server tests share their modules within a worker: the next file must read the project's content again.
  vi.resetModules();
});

describe('a content folder without locales/', () => {
  it('builds with one warning line and serves the app in English to a Spanish reader', async () => {
    const { content, warnings, server, support } = await buildAndServe('all');
    try {
      expect(warnings).toEqual([
        "warning: there is no locales/es/: drivers reading Spanish see Onramp in English — run npm run locales, then write each text's translation",
      ]);
      const page = await server.app.inject({ method: 'GET', url: '/signup', headers: { accept: 'text/html', 'accept-language': 'es' } });
      expect(page.statusCode).toBe(200);
      const scripts = spanishSignupScripts(content);
      expect(scripts).toContain('Password must contain at least one uppercase letter, one lowercase letter, one number, and one special character');
      expect(scripts).not.toContain('La contraseña debe tener al menos una letra mayúscula');
      // The server's answers too.
      const missing = await server.app.inject({ method: 'GET', url: '/driver/nothing', headers: { 'accept-language': 'es' } });
      expect(support.json(missing)).toEqual({ message: 'Not found.' });
    } finally {
      await server.close();
    }
  });
});

describe('a content folder with some translation files missing', () => {
  it('names them in one warning line, shows their texts in English and the others in Spanish', async () => {
    const { content, warnings, server, support } = await buildAndServe(['signup.schema.json', 'rjsf.json', 'server-messages.json']);
    try {
      expect(warnings).toEqual([
        "warning: locales/es/ has no rjsf.json, server-messages.json, signup.schema.json: drivers reading Spanish see those texts in English — run npm run locales, then write each text's translation",
      ]);
      const scripts = spanishSignupScripts(content);
      expect(scripts).toContain('Password must contain at least one uppercase letter');
      // The sign-up's UI schema still has its Spanish.
      const uiSpanish = JSON.parse(readFileSync(join(PROJECT, 'locales', 'es', 'signup.ui.json'), 'utf8')) as Record<string, { es?: string }>;
      const someSpanish = Object.values(uiSpanish).find((entry) => typeof entry.es === 'string' && entry.es.length > 8)!.es!;
      expect(scripts).toContain(someSpanish);
      const missing = await server.app.inject({ method: 'GET', url: '/driver/nothing', headers: { 'accept-language': 'es' } });
      expect(support.json(missing)).toEqual({ message: 'Not found.' });
    } finally {
      await server.close();
    }
  });
});
