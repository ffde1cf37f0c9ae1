// `npm run validate` as a tester runs it: what it prints, its exit status and its JUnit report.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareMessages } from '../../src/cli/fixtures.js';
import { runValidate } from '../../src/cli/validate-fixtures.js';
import { listFixtureFiles } from '../../src/node/projectFiles.js';
import { FIXTURES_DIR, loadFlow, PROJECT_ROOT, readJsonFile } from '../../src/node/projectFiles.js';

const temp = mkdtempSync(join(tmpdir(), 'onramp-validate-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The command as `npm run validate` runs it, in a process of its own: for the one end-to-end check. */
function validateInProcessOfItsOwn(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'validate', '--', ...args], { cwd: PROJECT_ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The command's function, with what it prints collected as a terminal would show it. */
async function validate(...args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const status = runValidate(args, { out: (line) => (stdout += `${line}\n`), err: (line) => (stderr += `${line}\n`), cwd: PROJECT_ROOT });
  return { status, stdout, stderr };
}

/** A shipped fixture, changed and written to the temporary folder. */
function writeVariantOf(shipped: string, name: string, change: (fixture: Record<string, any>) => void): string {
  const fixture = readJsonFile(join(FIXTURES_DIR, shipped)) as Record<string, any>;
  change(fixture);
  const path = join(temp, name);
  writeFileSync(path, JSON.stringify(fixture, null, 2));
  return path;
}

const write = (name: string, json: unknown) => {
  const path = join(temp, name);
  writeFileSync(path, JSON.stringify(json));
  return path;
};

const formSteps = Object.entries(loadFlow().steps).flatMap(([id, step]) => (step.kind === 'form' ? [id] : []));

describe('npm run validate', () => {
  it('passes every shipped fixture, run as a tester runs it', async () => {
    const count = listFixtureFiles().length;
    const { status, stdout } = await validateInProcessOfItsOwn();
    expect(stdout).toContain('✓ tests/fixtures/signup/invalid/email-without-domain.json (signup)\n      /email: "Email must be valid."\n');
    expect(stdout).toContain('✓ tests/fixtures/completeProfile/valid/social-complete.json (completeProfile, variant profile-social)\n');
    expect(stdout).not.toContain('✗');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(`${count} passed, 0 failed`);
    expect(status).toBe(0);
  });

  it('fails a fixture whose message is wrong, naming the field, the expected and the actual message', async () => {
    const wrong = writeVariantOf('signup/invalid/email-without-domain.json', 'wrong-message.json', (f) => {
      f.errors['/email'] = 'Email must be valid!';
    });
    const { status, stdout } = await validate(wrong);
    expect(stdout).toBe(`✗ ${wrong} (signup)\n    ✗ /email: expected "Email must be valid!", got "Email must be valid."\n0 passed, 1 failed\n`);
    expect(status).toBe(1);
  });

  it('fails a fixture that misses a field both validators refuse', async () => {
    const wrong = writeVariantOf('signup/invalid/email-without-domain.json', 'missed-field.json', (f) => {
      f.data.accept = false;
    });
    const { status, stdout } = await validate(wrong);
    expect(stdout).toContain('    ✗ /accept: expected no message, got "You must accept the Terms & Conditions"\n');
    expect(stdout).toContain('      /email: "Email must be valid."\n');
    expect(status).toBe(1);
  });

  it('writes a well-formed JUnit report with the right counts', async () => {
    const shipped = listFixtureFiles(join(FIXTURES_DIR, 'signup'));
    // Quotes, <, > and & must all survive escaping.
    const wrong = writeVariantOf('signup/invalid/terms-unticked.json', 'wrong-terms.json', (f) => {
      f.errors['/accept'] = 'You must accept the <Terms> & "Conditions"';
    });
    const report = join(temp, 'report.xml');
    const { status, stdout } = await validate('tests/fixtures/signup', wrong, '--junit', report);
    expect(stdout).toContain(`${shipped.length} passed, 1 failed\nJUnit report: ${report}\n`);
    expect(status).toBe(1);

    const root = parseXml(readFileSync(report, 'utf8'));
    expect(root.name).toBe('testsuites');
    const [suite, ...more] = root.children;
    expect(more).toEqual([]);
    expect(suite?.name).toBe('testsuite');
    expect(suite?.attributes).toMatchObject({ tests: String(shipped.length + 1), failures: '1', errors: '0' });
    expect(suite?.children.map((c) => c.name)).toEqual(Array(shipped.length + 1).fill('testcase'));
    const failed = suite!.children.filter((c) => c.children.length > 0);
    expect(failed.map((c) => c.attributes)).toEqual([{ classname: 'signup', name: wrong }]);
    const [failure] = failed[0]!.children;
    expect(failure?.name).toBe('failure');
    expect(failure?.attributes.message).toBe(
      '/accept: expected "You must accept the <Terms> & \\"Conditions\\"", got "You must accept the Terms & Conditions"',
    );
    expect(failure?.text).toBe('✗ /accept: expected "You must accept the <Terms> & \\"Conditions\\"", got "You must accept the Terms & Conditions"');
  });

  it('checks a bare payload against the step named by --step', async () => {
    const good = write('code.json', { otp: '1234' });
    const bad = write('letters.json', { otp: '12a4' });
    const { status, stdout } = await validate('--step', 'verifyEmail', good, bad);
    expect(stdout).toBe(
      `✓ ${good} (verifyEmail)\n` +
        `✗ ${bad} (verifyEmail)\n    ✗ /otp: expected no message, got "The code must be exactly 4 digits."\n` +
        '1 passed, 1 failed\n',
    );
    expect(status).toBe(1);
  });

  it('checks a bare payload against a variant of the step', async () => {
    const social = readJsonFile(join(FIXTURES_DIR, 'completeProfile/valid/social-complete.json'));
    const payload = write('social.json', social.data);
    const { status, stdout } = await validate('--step', 'completeProfile', '--variant', 'profile-social', payload);
    expect(stdout).toBe(`✓ ${payload} (completeProfile, variant profile-social)\n1 passed, 0 failed\n`);
    expect(status).toBe(0);
  });

  it("reads a request body with --body as the server does, undoing the flow's transforms, and names each field by its key in the body", async () => {
    const profile = readJsonFile(join(FIXTURES_DIR, 'completeProfile/valid/complete.json')).data as Record<string, unknown>;
    const { zipCode: _zipCode, ...rest } = profile;
    const good = write('profile-body.json', { ...rest, zipcode: '90001' });
    const bad = write('profile-body-bad.json', { ...rest, zipcode: '9000', MI: '' });
    const signup = write('signup-body.json', {
      email: 'DRIVER@EXAMPLE.COM',
      phoneNo: '+12015550123',
      password: 'Str0ng!pass',
      confirmPassword: 'Str0ng!pass',
      referalCode: null,
      accept: true,
      twilioCheck: true,
    });
    const { status, stdout } = await validate('--step', 'completeProfile', '--body', good, bad);
    expect(stdout).toBe(
      `✓ ${good} (completeProfile, a request body)\n` +
        `✗ ${bad} (completeProfile, a request body)\n    ✗ /zipCode (the body's "zipcode"): expected no message, got "Zip code must be 5 digits."\n` +
        '1 passed, 1 failed\n',
    );
    expect(status).toBe(1);
    // "+1" taken off the phone number, a null referral code read as none: as the server reads the body.
    expect((await validate('--step', 'signup', '--body', signup)).stdout).toBe(`✓ ${signup} (signup, a request body)\n1 passed, 0 failed\n`);
    expect((await validate('--body', signup)).stderr).toContain('--body goes with --step');
  });

  it('refuses an unknown --step, listing the form steps', async () => {
    const payload = write('any.json', { otp: '1234' });
    const { status, stdout, stderr } = await validate('--step', 'verifyEmial', payload);
    expect(stderr).toContain(`--step verifyEmial: no step "verifyEmial" in flows/onboarding.flow.json — use one of the form steps: ${formSteps.join(', ')}\n`);
    expect(stdout).toBe('');
    expect(status).toBe(2);
  });

  it('fails a fixture naming an unknown step, listing the form steps', async () => {
    const wrong = writeVariantOf('verifyEmail/valid/complete.json', 'unknown-step.json', (f) => {
      f.step = 'verifyEmial';
    });
    const { status, stdout } = await validate(wrong);
    expect(stdout).toBe(
      `✗ ${wrong}\n    ✗ ${wrong}:/step: no step "verifyEmial" in flows/onboarding.flow.json — use one of the form steps: ${formSteps.join(', ')}\n0 passed, 1 failed\n`,
    );
    expect(status).toBe(1);
  });

  it('says what is wrong with a fixture written by hand', async () => {
    const wrong = write('by-hand.json', { step: 'signup', expect: 'invalid', errors: { email: 'Email must be valid.' }, date: {} });
    const { stdout } = await validate(wrong);
    expect(stdout.split('\n').slice(1, -2)).toEqual([
      `    ✗ ${wrong}:/date: unknown key — a fixture has description, step, variant, locale, expect, errors, data`,
      `    ✗ ${wrong}:/data: must be the form's values, e.g. "data": { "email": "driver@example.com" }`,
      `    ✗ ${wrong}:/errors/email: a field is written as a JSON pointer — write "/email"`,
    ]);
  });
});

describe('a disagreement between the two validators', () => {
  it('is a failure even where one of them says what the fixture expects', () => {
    expect(compareMessages({ '/email': 'Email must be valid.' }, { '/email': 'Email must be valid.' }, { '/email': 'must match format "email"' })).toEqual([
      {
        ok: false,
        field: '/email',
        text: '/email: the browser says "Email must be valid." but the server says "must match format \\"email\\"" (expected "Email must be valid.")',
      },
    ]);
  });
});

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * A strict parser for what a JUnit report holds (a declaration, elements, attributes, text and
 * entity or character references); anything not well-formed throws.
 */
function parseXml(xml: string): XmlElement {
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`not well-formed XML: ${what} at ${at}: ${JSON.stringify(xml.slice(at, at + 40))}`);
  };
  const skipSpace = () => {
    while (' \t\r\n'.includes(xml[at] ?? 'x')) at++;
  };
  const take = (literal: string) => {
    if (!xml.startsWith(literal, at)) fail(`expected ${JSON.stringify(literal)}`);
    at += literal.length;
  };
  const name = () => {
    const start = at;
    while (/[\w.:-]/.test(xml[at] ?? '')) at++;
    if (at === start) fail('expected a name');
    return xml.slice(start, at);
  };
  const decode = (raw: string) =>
    raw.replace(/&([^;]*);?/g, (whole, ref: string) => {
      if (!whole.endsWith(';')) fail('a bare &');
      if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
      if (ref.startsWith('#')) return String.fromCodePoint(Number(ref.slice(1)));
      return ENTITIES[ref] ?? fail(`unknown entity &${ref};`);
    });
  const element = (): XmlElement => {
    take('<');
    const node: XmlElement = { name: name(), attributes: {}, children: [], text: '' };
    for (;;) {
      skipSpace();
      if (xml.startsWith('/>', at)) {
        at += 2;
        return node;
      }
      if (xml[at] === '>') break;
      const key = name();
      take('="');
      const end = xml.indexOf('"', at);
      if (end < 0) fail('an unclosed attribute');
      const raw = xml.slice(at, end);
      if (raw.includes('<')) fail('a < in an attribute');
      if (key in node.attributes) fail(`a repeated attribute ${key}`);
      node.attributes[key] = decode(raw);
      at = end + 1;
    }
    take('>');
    for (;;) {
      const next = xml.indexOf('<', at);
      if (next < 0) fail(`an unclosed <${node.name}>`);
      node.text += decode(xml.slice(at, next));
      at = next;
      if (xml.startsWith('</', at)) {
        at += 2;
        if (name() !== node.name) fail(`a closing tag that does not match <${node.name}>`);
        skipSpace();
        take('>');
        node.text = node.children.length > 0 ? node.text.trim() : node.text;
        return node;
      }
      node.children.push(element());
    }
  };
  if (xml.startsWith('<?xml')) at = xml.indexOf('?>') + 2;
  skipSpace();
  const root = element();
  skipSpace();
  if (at !== xml.length) fail('content after the root element');
  return root;
}
