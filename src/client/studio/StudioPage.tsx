/**
 * The form studio (/studio), for the people who edit schemas/ and test them: every form step
 * of the flow, shown as drivers see it with a fixture's data from tests/fixtures/, its
 * validation result live beside it, at a phone's width or a desktop's. The flow is not walked:
 * nothing is sent and no guard runs. The form itself is drawn in a frame (StudioFrame.tsx), so
 * the page's own width rules apply as on a phone.
 *
 * Open under `npm run dev`; otherwise for staff, who sign in here as on
 * the review page. Loaded as its own chunk, so drivers never download it.
 */
import { Fragment, Suspense, use, useEffect, useMemo, useRef, useState } from 'react';
import useSWR from 'swr';
import type { FormStep } from '../../shared/flow.js';
import { StaffSignInForm } from '../admin/StaffSignIn.js';
import { AdminStyles } from '../admin/AdminStyles.js';
import { isRefusal } from '../admin/adminApi.js';
import { request } from '../runtime/api.js';
import { flow, isFormStep } from '../runtime/flow.js';
import { dataOf, READ_ONCE, type RequestError } from '../runtime/reads.js';
import { clearStaffToken, getStaffToken, setStaffToken } from '../runtime/storage.js';
import { loadStepForm } from '../form/StepFormView.js';
import type { StepValues } from '../runtime/stepValues.js';
import { differencesFrom, FIXTURES_URL, messagesByPointer, type FrameMessage, type ShowMessage } from './studioData.js';
import type { ListedFixture } from '../../shared/fixtureFiles.js';

const PAGE_TITLE = 'Form studio · Onramp';
const SESSION_ENDED = 'Your staff session has ended. Please sign in again.'; // only if the server gave no message

/** The preview's sizes: the phone the tests use, and a desktop past the page's 900 px breakpoint. */
const WIDTHS = {
  phone: { label: 'Phone 390 px', width: 390, height: 844 },
  desktop: { label: 'Desktop 1024 px', width: 1024, height: 768 },
} as const;
type Width = keyof typeof WIDTHS;

const STUDIO_CSS = `
.studio { max-width: 1480px; margin: 0 auto; padding: 12px 12px 40px; }
.studio-header { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; padding: 8px 4px 16px; }
.studio-header h1 { margin: 0; font-size: 1.25rem; }
.studio-body { display: grid; grid-template-columns: minmax(0, 1fr); gap: 16px; }
.studio-panel { background: var(--color-surface); border-radius: 16px; padding: 16px; box-shadow: 0 1px 3px rgb(16 24 40 / 0.08); }
.studio-panel h2 { font-size: 1rem; margin: 0 0 8px; }
.studio-steps ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 6px; }
.studio-step { display: flex; flex-direction: column; align-items: flex-start; min-height: 44px; padding: 6px 12px; border: 1px solid var(--color-border); border-radius: var(--radius); background: #fff; font: inherit; color: inherit; text-align: left; cursor: pointer; }
.studio-step small { color: var(--color-muted); }
.studio-step[aria-current='true'] { border-color: var(--color-primary); box-shadow: inset 0 0 0 1px var(--color-primary); font-weight: 600; }
.studio-controls { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 12px 16px; }
.studio-controls > * { min-width: 0; max-width: 100%; }
.studio-controls label { display: block; font-weight: 600; font-size: 0.9rem; margin-bottom: 4px; }
.studio-controls select { min-height: 44px; max-width: 100%; padding: 8px 10px; font: inherit; border: 1px solid var(--color-border); border-radius: var(--radius); background: #fff; }
.studio-widths { display: inline-flex; border: 1px solid var(--color-border); border-radius: var(--radius); overflow: hidden; }
.studio-widths button { min-height: 44px; padding: 8px 14px; border: 0; background: #fff; font: inherit; font-weight: 600; color: var(--color-muted); cursor: pointer; }
.studio-widths button[aria-pressed='true'] { background: var(--color-primary); color: #fff; }
.studio-step:focus-visible, .studio-widths button:focus-visible, .studio-controls select:focus-visible { outline: 3px solid rgb(20 99 255 / 0.35); outline-offset: 1px; }
.studio-result dl { margin: 0; display: grid; grid-template-columns: auto 1fr; gap: 4px 12px; }
.studio-result dt { font: 0.9rem/1.45 ui-monospace, monospace; }
.studio-result dd { margin: 0; color: var(--color-error); }
.studio-valid { margin: 0; color: #067647; font-weight: 700; }
.studio-check { margin: 12px 0 0; padding-top: 12px; border-top: 1px solid var(--color-border); }
.studio-check p { margin: 0; }
.studio-check ul { margin: 4px 0 0; padding-left: 20px; color: var(--color-error); }
.studio-preview { display: grid; gap: 16px; }
.studio-stage { overflow: auto; padding: 4px; }
.studio-stage iframe { display: block; box-sizing: content-box; border: 1px solid var(--color-border); border-radius: 12px; background: var(--color-page); }
/* On a phone, the phone preview is as wide as the phone; a desktop preview scrolls. */
.studio-phone .studio-stage iframe { max-width: 100%; }
@media (min-width: 900px) {
  .studio-body { grid-template-columns: 240px minmax(0, 1fr); align-items: start; }
  .studio-steps ul { flex-direction: column; }
  .studio-step { width: 100%; }
  .studio-workspace { display: grid; gap: 16px; }
  /* Beside a phone-wide preview there is room for the result; a desktop-wide one has it above. */
  .studio-preview.studio-phone { display: grid; grid-template-columns: auto minmax(260px, 1fr); gap: 16px; align-items: start; }
  .studio-preview.studio-phone .studio-result { grid-column: 2; grid-row: 1; position: sticky; top: 12px; }
}
`;

/** Under `npm run dev` no token is needed: the first read goes without one unless the tab has one. */
const readFixtures = ([url, token]: readonly [string, string | undefined]): Promise<ListedFixture[]> =>
  dataOf(request<{ fixtures: ListedFixture[] }>(url, { bearer: token })).then((answer) => answer.fixtures);

export function StudioPage() {
  const [token, setToken] = useState(getStaffToken);
  const {
    data: fixtures,
    error,
    isLoading,
    mutate,
  } = useSWR<ListedFixture[], RequestError>([FIXTURES_URL, token], readFixtures, {
    ...READ_ONCE,
    onError: (failed) => {
      if (isRefusal(failed.failure.status)) clearStaffToken();
    },
  });
  const refused = error && isRefusal(error.failure.status);

  useEffect(() => {
    const previous = document.title;
    document.title = PAGE_TITLE;
    return () => {
      document.title = previous;
    };
  }, []);

  function open(newToken: string) {
    setStaffToken(newToken);
    setToken(newToken);
    // The same token again is tried again: its key is unchanged, so it is read afresh.
    if (newToken === token) void mutate();
  }

  return (
    <div className="studio">
      <style>{STUDIO_CSS}</style>
      <AdminStyles />
      <header className="studio-header">
        <img src="/assets/logo.svg" alt="Onramp" width={120} height={32} />
        <h1>Form studio</h1>
      </header>
      {isLoading && (
        <div className="page-loading" role="status" aria-live="polite">
          <span className="spinner spinner-large" aria-hidden="true" />
        </div>
      )}
      {!isLoading && refused && (
        <main className="studio-panel">
          <h2>Sign in to preview the forms</h2>
          <StaffSignInForm
            submitText="Open the studio"
            notice={token ? (error.failure.message ?? SESSION_ENDED) : undefined}
            onSignedIn={(session) => open(session.token)}
          />
        </main>
      )}
      {!isLoading && error && !refused && (
        <p className="field-error" role="alert">
          {error.message}
        </p>
      )}
      {fixtures && <Studio fixtures={fixtures} />}
    </div>
  );
}

const FORM_STEPS = Object.entries(flow.steps).filter((entry): entry is [string, FormStep] => isFormStep(entry[1]));

function Studio({ fixtures }: { fixtures: ListedFixture[] }) {
  const [stepId, setStepId] = useState(FORM_STEPS[0]?.[0] ?? '');
  const step = flow.steps[stepId] as FormStep;
  const [schema, setSchema] = useState(step.schema);
  const [fixtureFile, setFixtureFile] = useState('');
  const [width, setWidth] = useState<Width>('phone');
  const stepFixtures = fixtures.filter((fixture) => fixture.step === stepId);
  const fixture = stepFixtures.find((each) => each.file === fixtureFile);
  const schemas = [step.schema, ...(step.variants ?? []).map((variant) => variant.schema)];

  function pickStep(id: string) {
    setStepId(id);
    setSchema((flow.steps[id] as FormStep).schema);
    setFixtureFile('');
  }

  function pickFixture(file: string) {
    setFixtureFile(file);
    const picked = stepFixtures.find((each) => each.file === file);
    if (picked) setSchema(picked.variant ?? step.schema);
  }

  const shown = useMemo<ShowMessage>(
    () => ({ kind: 'show', key: `${stepId}|${schema}|${fixture?.file ?? ''}`, step: stepId, schema, data: fixture?.data ?? {} }),
    [stepId, schema, fixture],
  );
  const frame = useFrame(shown);
  const data = frame.reported?.key === shown.key ? frame.reported.data : shown.data;
  const size = WIDTHS[width];

  return (
    <div className="studio-body">
      <nav className="studio-panel studio-steps" aria-labelledby="studio-steps-title">
        <h2 id="studio-steps-title">Form steps</h2>
        <ul>
          {FORM_STEPS.map(([id, each]) => (
            <li key={id}>
              <button type="button" className="studio-step" aria-current={id === stepId} onClick={() => pickStep(id)}>
                {id}
                <small>{each.route}</small>
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <main className="studio-workspace">
        <div className="studio-panel studio-controls">
          {schemas.length > 1 && (
            <div>
              <label htmlFor="studio-schema">Schema</label>
              <select id="studio-schema" value={schema} onChange={(event) => setSchema(event.target.value)}>
                {schemas.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </div>
          )}
          <div>
            <label htmlFor="studio-fixture">Fixture</label>
            <select id="studio-fixture" value={fixtureFile} onChange={(event) => pickFixture(event.target.value)}>
              <option value="">None: an empty form</option>
              {stepFixtures.map((each) => (
                <option key={each.file} value={each.file}>
                  {each.file.replace(/^tests\/fixtures\//, '')}
                  {each.expect ? ` (${each.expect})` : ''}
                </option>
              ))}
            </select>
          </div>
          <div role="group" aria-label="Preview width" className="studio-widths">
            {(Object.keys(WIDTHS) as Width[]).map((each) => (
              <button key={each} type="button" aria-pressed={each === width} onClick={() => setWidth(each)}>
                {WIDTHS[each].label}
              </button>
            ))}
          </div>
        </div>
        <div className={`studio-preview studio-${width}`}>
          <Suspense fallback={null}>
            <ValidationResult schema={schema} data={data} fixture={fixture} />
          </Suspense>
          <div className="studio-stage">
            <iframe ref={frame.ref} src="/studio/frame" title={`The ${schema} form at ${size.label}`} width={size.width} height={size.height} />
          </div>
        </div>
      </main>
    </div>
  );
}

/**
 * The preview frame: it is sent `shown` once it listens, again after it reloaded (a live edit)
 * and whenever `shown` changes; what it reports is the form's data as edited there.
 */
function useFrame(shown: ShowMessage) {
  const ref = useRef<HTMLIFrameElement>(null);
  const [readyCount, setReadyCount] = useState(0);
  const [reported, setReported] = useState<{ key: string; data: StepValues }>();

  useEffect(() => {
    const onMessage = (event: MessageEvent<FrameMessage>) => {
      if (event.source !== ref.current?.contentWindow || event.origin !== window.location.origin) return;
      if (event.data.kind === 'ready') {
        setReported(undefined);
        setReadyCount((count) => count + 1);
      } else if (event.data.kind === 'data') setReported({ key: event.data.key, data: event.data.data });
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, []);

  useEffect(() => {
    if (readyCount > 0) ref.current?.contentWindow?.postMessage(shown, window.location.origin);
  }, [shown, readyCount]);

  return { ref, reported };
}

/** The validator's verdict on the data, per field, and how it compares with the fixture's expectation. */
function ValidationResult({ schema, data, fixture }: { schema: string; data: StepValues; fixture?: ListedFixture }) {
  const form = use(loadStepForm(schema));
  const messages = useMemo(() => messagesByPointer(form.validator.validateFormData(data, form.schema).errors), [form, data]);
  const fields = Object.entries(messages);
  const differences = fixture ? differencesFrom(fixture, messages) : [];
  return (
    <section className="studio-panel studio-result" aria-labelledby="studio-result-title">
      <h2 id="studio-result-title">Validation</h2>
      <div aria-live="polite">
        {fields.length === 0 ? (
          <p className="studio-valid">Valid</p>
        ) : (
          <dl aria-label={fields.length === 1 ? '1 field has an error' : `${fields.length} fields have errors`}>
            {fields.map(([pointer, message]) => (
              <Fragment key={pointer}>
                <dt>{pointer || '(form)'}</dt>
                <dd>{message}</dd>
              </Fragment>
            ))}
          </dl>
        )}
        {fixture && (
          <div className="studio-check">
            {differences.length === 0 ? (
              <p>As {fixture.file} expects.</p>
            ) : (
              <>
                <p>Not as {fixture.file} expects:</p>
                <ul>
                  {differences.map((difference) => (
                    <li key={difference}>{difference}</li>
                  ))}
                </ul>
              </>
            )}
          </div>
        )}
      </div>
    </section>
  );
}
