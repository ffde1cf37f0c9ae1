import type { IChangeEvent } from '@rjsf/core';
import type { ErrorSchema } from '@rjsf/utils';
import { useCallback, useMemo, useState } from 'react';
import { createFormValues } from '../../../widgets/formValues.js';
import { createTouchedFields } from '../../../widgets/touchedFields.js';
import { flow } from '../runtime/flow.js';
import type { StepValues } from '../runtime/stepValues.js';
import type { StepFormContext } from './templates.js';

/** Server field messages (400 `errors`) in rjsf's error-schema shape. */
function toErrorSchema(errors: Record<string, string[]> | undefined): ErrorSchema | undefined {
  if (!errors) return undefined;
  const schema: Record<string, { __errors: string[] }> = {};
  for (const [field, messages] of Object.entries(errors)) if (field) schema[field] = { __errors: messages };
  return schema as ErrorSchema;
}

/**
 * What a form on a page keeps between key presses: its values (from `initial`: the answers sent
 * before, on a step the driver comes back to), which fields were touched (an error shows once its
 * field was), how often it was submitted, and the server's field messages.
 *
 * The values live in a store, not in React state: a key press re-renders the form (rjsf keeps
 * its own, StepFormView's `initialData`) and whatever subscribed to what changed (`useFieldValue`,
 * `useValuesSelection`), never the page around it.
 */
export function useStepFormState(initial: StepValues = {}) {
  const [values] = useState(() => createFormValues(initial));
  const [touched] = useState(createTouchedFields);
  const [submitCount, setSubmitCount] = useState(0);
  const [extraErrors, setExtraErrors] = useState<ErrorSchema>();

  const touch = useCallback(
    (id: string | undefined) => {
      if (id) touched.touch(id);
    },
    [touched],
  );

  const onChange = useCallback(
    (event: IChangeEvent<StepValues>, id?: string) => {
      values.set(event.formData ?? {});
      setExtraErrors(undefined);
      touch(id);
    },
    [touch, values],
  );

  const countSubmit = useCallback(() => setSubmitCount((count) => count + 1), []);
  // Stable between key presses, so rjsf re-renders only the fields whose own props changed; new in a new language.
  const widgetTexts = flow.messages.widgets;
  const formContext: StepFormContext = useMemo(() => ({ touched, submitCount, values, widgetTexts }), [touched, submitCount, values, widgetTexts]);
  return {
    values,
    formContext,
    onChange,
    touch,
    countSubmit,
    extraErrors,
    showServerErrors: (errors?: Record<string, string[]>) => setExtraErrors(toErrorSchema(errors)),
  };
}
