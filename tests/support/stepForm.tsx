/**
 * A form step rendered for the component tests as the step page renders it: the step's schema
 * and UI schema with our widgets, templates and precompiled validator (StepFormView), its state
 * kept by useStepFormState (touched fields, submit attempts, the server's field messages).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { loadStepForm, StepFormView, submitTextOf } from '../../src/client/form/StepFormView.js';
import type { StepValues } from '../../src/client/runtime/stepValues.js';
import { useStepFormState } from '../../src/client/form/useStepFormState.js';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';
import { writeUsPlaces } from '../../src/node/usPlaces.js';
import { SWRConfig } from 'swr';
import { readPath } from '../../src/client/runtime/reads.js';
import { PLACES_BASE_URL } from '../../widgets/placesData.js';

type StepFormState = ReturnType<typeof useStepFormState>;

export async function renderStepForm(schemaName: string, initial: StepValues = {}) {
  const form = await loadStepForm(schemaName);
  const submitted = vi.fn<(data: StepValues) => void>();
  let state: StepFormState | undefined;
  function Harness() {
    state = useStepFormState(initial);
    return (
      <StepFormView
        form={form}
        initialData={initial}
        formContext={state.formContext}
        onChange={state.onChange}
        onBlur={state.touch}
        onSubmit={({ formData }) => {
          state?.countSubmit();
          submitted(formData ?? {});
        }}
        onError={state.countSubmit}
        extraErrors={state.extraErrors}
      >
        <button type="submit">{submitTextOf(form)}</button>
      </StepFormView>
    );
  }
  const user = userEvent.setup();
  // The app's fetcher (App.tsx), and a cache of the test's own: nothing read in one test shows in another.
  const view = render(
    <SWRConfig value={{ fetcher: readPath, provider: () => new Map() }}>
      <Harness />
    </SWRConfig>,
  );
  return {
    ...view,
    user,
    submitted,
    /** The form's values as the page holds them. */
    values: () => state?.values.all() ?? {},
    /** Shows the server's field messages (a 400's `errors`), as the step page does. */
    showServerErrors: (errors: Record<string, string[]>) => state?.showServerErrors(errors),
  };
}

/**
 * Answers the page's fetches of the state and city lists with the files the build writes
 * (src/node/usPlaces.ts), and any other fetch with 404. `down` makes every fetch fail, as with
 * no network. Returns the paths asked for.
 */
export async function servePlaces(options: { down?: boolean } = {}): Promise<string[]> {
  const folder = join(PROJECT_ROOT, 'build', 'test-places');
  await writeUsPlaces(folder);
  const asked: string[] = [];
  vi.stubGlobal('fetch', async (url: string) => {
    const path = new URL(url, 'http://localhost').pathname;
    asked.push(path);
    if (options.down) throw new TypeError('Failed to fetch');
    if (!path.startsWith(`${PLACES_BASE_URL}/`)) return new Response(null, { status: 404 });
    const file = await readFile(join(folder, path.slice(PLACES_BASE_URL.length + 1))).catch(() => undefined);
    return file ? new Response(file, { headers: { 'Content-Type': 'application/json' } }) : new Response(null, { status: 404 });
  });
  return asked;
}
