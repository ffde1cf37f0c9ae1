// Reads what `npm run build` produced (npm test builds first).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BROWSER_BUNDLE } from '../src/node/builds/bundles.js';
import { inlineStylesheet } from '../src/node/builds/indexHtml.js';
import { staticClosure, type Metafile, type RouteScripts } from '../src/node/builds/pageScripts.js';
import { sharedChunkPlugin } from '../src/node/builds/sharedChunk.js';
import { PROJECT_ROOT } from '../src/node/projectFiles.js';
import { HASHED_ASSET } from '../src/server/routes/static.js';

const metafile = JSON.parse(readFileSync(join(PROJECT_ROOT, 'build', 'metafile.json'), 'utf8')) as Metafile;
const outputs = Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.js'));
const inputsOf = (file: string) => Object.keys(metafile.outputs[file]?.inputs ?? {});
/** The inputs of a script by its URL ("/assets/chunks/…"). */
const outputOf = (url: string) => inputsOf(`dist${url}`);

/** The entry and every chunk it imports statically: what the first page loads. */
function initialFiles(): string[] {
  const entry = outputs.find(([, output]) => output.entryPoint?.endsWith('src/client/app/main.tsx'))?.[0];
  return staticClosure(metafile, entry ? [entry] : []);
}

/** What a driver's first visit to /signup loads: the first page, the step page, its social sign-in buttons and the sign-up form. */
function signupFiles(): string[] {
  const owning = (input: string) => outputs.filter(([file]) => inputsOf(file).some((each) => each.endsWith(input))).map(([file]) => file);
  return staticClosure(metafile, [
    ...initialFiles(),
    ...owning('src/client/form/StepPage.tsx'),
    ...owning('src/client/form/SocialSignIn.tsx'),
    ...owning('build/generated/forms/signup.js'),
  ]);
}

describe('the browser bundle', () => {
  it('contains no Ajv compiler, only its small runtime helpers', () => {
    const compiler = outputs.flatMap(([file]) => inputsOf(file).filter((input) => /node_modules\/ajv\/dist\/(core|ajv|compile)/.test(input)));
    expect(compiler).toEqual([]);
  });

  it('leaves out what no page reads: the flow file’s "$comment"s, and fast-uri and jsonpointer (no "$ref" reaches the browser)', () => {
    const flowScripts = outputs.filter(([file]) => inputsOf(file).some((input) => input.endsWith('flows/onboarding.flow.json'))).map(([file]) => file);
    expect(flowScripts).not.toEqual([]);
    for (const file of flowScripts) expect(readFileSync(join(PROJECT_ROOT, file), 'utf8'), file).not.toContain('$comment');
    expect(outputs.flatMap(([file]) => inputsOf(file).filter((input) => /node_modules\/(fast-uri|jsonpointer)\//.test(input)))).toEqual([]);
  });

  it('leaves out the parts of rjsf no form calls for: the allOf merger, arrays, oneOf and anyOf, the layout grid, the widgets no field draws, the sanitizing for a conditional schema, omitExtraData (forms given some bring them back: tests/server/contentFolder.test.ts)', () => {
    const inputs = outputs.flatMap(([file]) => inputsOf(file));
    const parts =
      /@x0k\/json-schema-merge\/|@rjsf\/core\/lib\/components\/(fields\/(ArrayField|MultiSchemaField|Layout\w+Field)|templates\/(ArrayField\w*|MultiSchemaField)Template)\.js$/;
    expect(inputs.filter((input) => parts.test(input))).toEqual([]);
    expect(
      inputs.filter((input) =>
        /@rjsf\/core\/lib\/components\/widgets\/(File|AltDate|AltDateTime|Checkboxes|Radio|Rating|Textarea|Range|Time|DateTime|Color)Widget\.js$/.test(input),
      ),
    ).toEqual([]);
    expect([...new Set(inputs.filter((input) => input.startsWith('rjsf-part-left-out:')))].sort()).toEqual(
      [
        'allOf',
        'altDateWidgets',
        'alternatives',
        'arrays',
        'checkboxesWidget',
        'colorWidget',
        'conditionals',
        'fileWidget',
        'layoutGrid',
        'omitExtraData',
        'radioWidget',
        'rangeWidget',
        'ratingWidget',
        'replacedByOurs',
        'textareaWidget',
        'timeWidgets',
      ].map((part) => `rjsf-part-left-out:${part}`),
    );
  });

  it("leaves out rjsf's utilities no form calls: those that pick one of a oneOf's options, the sanitizing for a conditional schema, and omitExtraData, which our form is never given", () => {
    const inputs = outputs.flatMap(([file]) => inputsOf(file));
    expect(
      inputs.filter((input) =>
        /@rjsf\/utils\/lib\/(schema\/(getClosestMatchingOption|getFirstMatchingOption|findSelectedOptionInXxxOf|sanitizeDataForNewSchema|omitExtraData|toPathSchema)|getOptionMatchingSimpleDiscriminator)\.js$/.test(
          input,
        ),
      ),
    ).toEqual([]);
  });

  it("leaves rjsf's own templates and select, which every form is given ours in place of, out of the browser", () => {
    const inputs = outputs.flatMap(([file]) => inputsOf(file));
    expect(
      inputs.filter((input) => /@rjsf\/core\/lib\/components\/(templates\/(ErrorList|FieldErrorTemplate|TitleField)|widgets\/SelectWidget)\.js$/.test(input)),
    ).toEqual([]);
  });

  it("leaves what a step shows only once it was sent (the journey's end, the sign-in asked for again) out of the first visit to /signup", () => {
    const inputs = signupFiles().flatMap(inputsOf);
    expect(inputs.filter((input) => /src\/client\/form\/(CompletionView|SignInAgainDialog)\.tsx$/.test(input))).toEqual([]);
  });

  it('sends at most 170 KB gzip of JavaScript on a first visit to /signup', () => {
    const gzipped = signupFiles().reduce((total, file) => total + gzipSync(readFileSync(join(PROJECT_ROOT, file)), { level: 9 }).length, 0);
    expect(gzipped / 1024).toBeLessThanOrEqual(170);
  });

  it('loads a second language on demand: no translation and no Spanish form in the first visit to /signup', () => {
    const inputs = signupFiles().flatMap(inputsOf);
    expect(inputs.filter((input) => input.includes('locales/') || /forms\/[\w-]+\.es\.js$/.test(input))).toEqual([]);
    // Each is a chunk of its own, loaded when a page in Spanish needs it.
    for (const chunk of ['locales/es/onboarding.flow.json', 'build/generated/forms/signup.es.js']) {
      expect(
        outputs.some(([, output]) => Object.keys(output.inputs).some((input) => input.endsWith(chunk))),
        chunk,
      ).toBe(true);
    }
  });

  it('gives swr and wouter React’s own useSyncExternalStore, with no shim for older Reacts', () => {
    expect(outputs.flatMap(([file]) => inputsOf(file).filter((input) => input.includes('node_modules/use-sync-external-store/')))).toEqual([]);
  });

  it('runs on React’s own react-dom, with no other runtime in the browser', () => {
    expect(initialFiles().some((file) => inputsOf(file).some((input) => input.includes('node_modules/react-dom/')))).toBe(true);
    const preact = outputs.flatMap(([file]) => inputsOf(file).filter((input) => input.includes('node_modules/preact')));
    expect(preact).toEqual([]);
    const texts = readdirSync(join(PROJECT_ROOT, 'dist'), { recursive: true })
      .map(String)
      .filter((file) => /\.(js|html|json)$/.test(file));
    expect(texts.filter((file) => readFileSync(join(PROJECT_ROOT, 'dist', file), 'utf8').includes('preact'))).toEqual([]);
  });

  it('contains no new Function and no eval', () => {
    const dir = join(PROJECT_ROOT, 'dist', 'assets');
    const files = readdirSync(dir, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.js'));
    expect(files.length).toBeGreaterThan(0);
    const offenders = files.filter((file) => /new Function\s*\(|\beval\s*\(/.test(readFileSync(join(dir, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('keeps Firebase out of the first page: it loads when a driver submits sign-up', () => {
    const firebase = initialFiles().flatMap((file) => inputsOf(file).filter((input) => input.includes('node_modules/@firebase/')));
    expect(firebase).toEqual([]);
    expect(outputs.some(([file]) => inputsOf(file).some((input) => input.includes('node_modules/@firebase/auth')))).toBe(true);
  });

  it('keeps Stripe out of the first page and out of the card screen until Stripe is configured', () => {
    const isStripe = (input: string) => input.includes('node_modules/@stripe/');
    expect(initialFiles().flatMap((file) => inputsOf(file).filter(isStripe))).toEqual([]);
    const cardScreen = outputs.find(([file]) => inputsOf(file).some((input) => input.endsWith('src/client/screens/AddCardScreen.tsx')))?.[0];
    expect(cardScreen).toBeDefined();
    expect(inputsOf(cardScreen!).filter(isStripe)).toEqual([]);
    const stripeChunk = outputs.find(([file]) => inputsOf(file).some((input) => input.endsWith('src/client/screens/addCard/StripeCardForm.tsx')))?.[0];
    expect(inputsOf(stripeChunk!).some((input) => input.includes('node_modules/@stripe/stripe-js/'))).toBe(true);
  });

  it('keeps what only the staff’s pages read out of the first page: the staff’s roles and audit actions', () => {
    expect(initialFiles().flatMap((file) => inputsOf(file).filter((input) => input.endsWith('src/shared/generated/staff.ts')))).toEqual([]);
    expect(outputs.some(([file]) => inputsOf(file).some((input) => input.endsWith('src/shared/generated/staff.ts')))).toBe(true);
  });

  it('ships no city list in the first page', () => {
    const cities = initialFiles().flatMap((file) => inputsOf(file).filter((input) => input.includes('country-state-city')));
    expect(cities).toEqual([]);
  });

  it("keeps the form studio and the live-edit client out of a driver's download of /signup", () => {
    const files = signupFiles();
    expect(files.some((file) => inputsOf(file).some((input) => input.endsWith('src/client/form/StepPage.tsx')))).toBe(true);
    const tools = files.flatMap((file) => inputsOf(file).filter((input) => /src\/client\/(studio|dev)\//.test(input)));
    expect(tools).toEqual([]);
    expect(outputs.some(([file]) => inputsOf(file).some((input) => input.endsWith('src/client/studio/StudioPage.tsx')))).toBe(true);
  });
});

describe('the shared-chunk manifest (src/client/app/sharedChunk.ts)', () => {
  it('bundles every module it names, with no warning: a package that says it has no side effects is not left out', async () => {
    const { warnings, metafile } = await esbuild.build({
      ...BROWSER_BUNDLE,
      entryPoints: [join(PROJECT_ROOT, 'src', 'client', 'app', 'sharedChunk.ts')],
      outdir: join(PROJECT_ROOT, 'build', 'shared-chunk-check'),
      write: false,
      logLevel: 'silent',
      plugins: [sharedChunkPlugin()],
    });
    expect(warnings.map((warning) => warning.text)).toEqual([]);
    const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs.filter((input) => input.includes('node_modules/ajv/')).sort()).toEqual([
      'node_modules/ajv/dist/runtime/equal.js',
      'node_modules/ajv/dist/runtime/ucs2length.js',
    ]);
  });
});

describe('the delivery', () => {
  const dist = join(PROJECT_ROOT, 'dist');

  it('puts a Brotli and a gzip form beside every text file worth compressing, with the same contents', () => {
    const texts = readdirSync(dist, { recursive: true })
      .map(String)
      .filter((file) => /\.(js|css|svg|json)$/.test(file) && readFileSync(join(dist, file)).length >= 1024);
    expect(texts.length).toBeGreaterThan(10);
    for (const file of texts) {
      const contents = readFileSync(join(dist, file));
      expect(brotliDecompressSync(readFileSync(join(dist, `${file}.br`))).equals(contents), file).toBe(true);
      expect(gunzipSync(readFileSync(join(dist, `${file}.gz`))).equals(contents), file).toBe(true);
    }
  });

  it('names every script so that the server lets browsers keep it for a year', () => {
    const files = readdirSync(join(dist, 'assets'), { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.js'));
    expect(files.filter((file) => /profile-social(\.es)?-/.test(file))).toHaveLength(2);
    expect(files.filter((file) => !HASHED_ASSET.test(`/assets/${file}`))).toEqual([]);
  });

  it('starts every page with two scripts: the entry and the shell every page shares, esbuild’s helpers in it (src/client/app/sharedChunk.ts)', () => {
    const [entry, ...chunks] = initialFiles();
    expect(entry).toMatch(/\/main-[A-Z0-9]{8}\.js$/);
    // More than these means a module the entry shares with a page loaded later is missing from app/sharedChunk.ts.
    expect(chunks).toHaveLength(1);
  });

  it('loads a step’s form with no script of its own beyond it: what the forms share is in the shell', () => {
    const shell = initialFiles();
    const form = outputs.find(([, output]) => Object.keys(output.inputs).some((input) => input.endsWith('build/generated/forms/signup.js')))?.[0];
    expect(form).toBeDefined();
    const imported = (metafile.outputs[form ?? '']?.imports ?? []).filter((each) => each.kind === 'import-statement').map((each) => each.path);
    expect(imported.filter((file) => !shell.includes(file))).toEqual([]);
  });

  it('preloads the first page’s scripts with it, and names each step’s own scripts for its route', () => {
    const html = readFileSync(join(dist, 'index.html'), 'utf8');
    for (const file of initialFiles().slice(1)) expect(html).toContain(`<link rel="modulepreload" href="/${file.replace(/^dist\//, '')}" />`);
    const preloads = JSON.parse(readFileSync(join(dist, 'route-preloads.json'), 'utf8')) as RouteScripts;
    const wanted = signupFiles()
      .filter((file) => !initialFiles().includes(file))
      .map((file) => `/${file.replace(/^dist\//, '')}`);
    expect(preloads['/signup']?.en.sort()).toEqual(wanted.sort());
    expect(preloads['/awaiting-approval']?.en.some((file) => file.includes('AwaitingApprovalScreen'))).toBe(true);
  });

  it('holds the app’s stylesheet in the page, after the scripts it names: nothing to ask for before a step shows', () => {
    const html = readFileSync(join(dist, 'index.html'), 'utf8');
    expect(html).not.toContain('rel="stylesheet"');
    const style = html.indexOf('<style>');
    expect(style).toBeGreaterThan(html.lastIndexOf('<link rel="modulepreload"'));
    expect(style).toBeGreaterThan(html.indexOf('<!--route-preload-->'));
    // A rule of src/client/app/app.css: the spinner a page shows until its step is drawn.
    expect(html.slice(style, html.indexOf('</style>'))).toContain('.page-loading{');
    expect(
      readdirSync(join(dist, 'assets'), { recursive: true })
        .map(String)
        .filter((file) => /\.css(\.br|\.gz)?$/.test(file)),
    ).toEqual([]);
  });

  it('refuses a stylesheet the page would read wrong: a relative url(), or text that ends its element', () => {
    expect(inlineStylesheet('a{color:red}\n')).toBe('<style>a{color:red}</style>');
    expect(inlineStylesheet('a{background:url("data:image/svg+xml,%3Csvg%3E")}b{background:url(/assets/logo.svg)}')).toContain('/assets/logo.svg');
    expect(() => inlineStylesheet('a{background:url("./logo-ABCD1234.svg")}')).toThrow(
      'The app\'s stylesheet names "./logo-ABCD1234.svg" by a relative url(): in index.html it would be looked for beside the page. Use a data: URL or a path from /.',
    );
    expect(() => inlineStylesheet('a::after{content:"</style><script>"}')).toThrow(
      'The app\'s stylesheet holds "</style", which would end its element in index.html.',
    );
  });

  it('asks the browser to compile at once every script a first visit runs as it loads, and no other', () => {
    const hinted = (file: string) => readFileSync(join(PROJECT_ROOT, file), 'utf8').startsWith('//# allFunctionsCalledOnLoad\n');
    const firstVisit = signupFiles();
    expect(firstVisit.filter((file) => !hinted(file))).toEqual([]);
    const others = outputs.map(([file]) => file).filter((file) => /\/(identity|AdminPage|StudioPage)-[A-Z0-9]{8}\.js$/.test(file));
    expect(others).toHaveLength(3);
    expect(others.filter(hinted)).toEqual([]);
  });

  it('preloads a step’s form in each language with that language’s texts, and leaves a variant form to the page that picks it', () => {
    const preloads = JSON.parse(readFileSync(join(dist, 'route-preloads.json'), 'utf8')) as RouteScripts;
    const formsOf = (files: string[] = []) => files.map((file) => /\/(profile[\w.-]*)-[A-Z0-9]{8}\.js$/.exec(file)?.[1]).filter(Boolean);
    expect(formsOf(preloads['/complete-profile']?.en)).toEqual(['profile']);
    expect(formsOf(preloads['/complete-profile']?.es)).toEqual(['profile.es']);
    const translations = (files: string[] = []) => files.filter((file) => outputOf(file).some((input) => input.includes('locales/es/')));
    expect(translations(preloads['/complete-profile']?.en)).toEqual([]);
    expect(translations(preloads['/complete-profile']?.es)).toHaveLength(2);
    expect(translations(preloads['/awaiting-approval']?.es)).toHaveLength(1);
  });
});
