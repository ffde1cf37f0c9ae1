/**
 * A form step as drivers see it: its schema and UI schema rendered by rjsf with our widgets and
 * templates, validated on every change by its precompiled validator. The step page
 * (StepPage.tsx) puts the flow around it; the studio (studio/) shows it with a fixture's data.
 */
import Form, { type IChangeEvent } from '@rjsf/core';
import type { ErrorSchema, RJSFSchema, RJSFValidationError, ValidatorType } from '@rjsf/utils';
import { createPrecompiledValidator } from '@rjsf/validator-ajv8';
import { useEffect, useMemo, useRef, type ReactNode } from 'react';
import { loadForm, type FormModule } from 'virtual:forms';
import { expandErrors, fieldOf } from '../shared/errors.js';
import { interpolate } from '../shared/flow.js';
import { formWidgets } from '../../widgets/index.js';
import { browserLookup } from './stepRuntime.js';
import { templates, type StepFormContext } from './templates.js';

export type FormData = Record<string, unknown>;

export interface LoadedForm extends FormModule {
  validator: ValidatorType<FormData, RJSFSchema>;
}

const loadedForms = new Map<string, Promise<LoadedForm>>();

/** A form's module (its own chunk) with its validator, loaded once per schema name. */
export function loadStepForm(name: string): Promise<LoadedForm> {
  let loaded = loadedForms.get(name);
  if (!loaded) {
    loaded = loadForm(name).then((module) => ({ ...module, validator: createPrecompiledValidator<FormData>(module.validateFns, module.schema) }));
    loadedForms.set(name, loaded);
  }
  return loaded;
}

/** The schema's own messages, each on its field (src/shared/errors.ts). */
export const transformErrors = (errors: RJSFValidationError[]) => expandErrors(errors);

interface StepFormViewProps {
  form: LoadedForm;
  formData: FormData;
  formContext: StepFormContext;
  onChange: (event: IChangeEvent<FormData>, id?: string) => void;
  onBlur?: (id: string) => void;
  onSubmit?: (event: IChangeEvent<FormData>) => void;
  onError?: () => void;
  extraErrors?: ErrorSchema;
  /** Values kept from before that the schema can't judge (a sensitive value's mask): no error while a field holds its. */
  keptValues?: Record<string, unknown>;
  /** Validates the data given at once, without moving the focus (the studio); a driver's form waits for changes. */
  validateAtOnce?: boolean;
  /** Shows the form's title (its UI schema's) as the page's heading; a form inside a dialog has the dialog's. */
  titled?: boolean;
  /** The submit button, when there is one. */
  children?: ReactNode;
}

export function StepFormView({
  form,
  formData,
  formContext,
  onChange,
  onBlur,
  onSubmit,
  onError,
  extraErrors,
  keptValues,
  validateAtOnce = false,
  titled = true,
  children,
}: StepFormViewProps) {
  const formRef = useRef<Form<FormData>>(null);
  const current = useRef(formData);
  current.current = formData;
  const transform = useMemo(() => {
    const kept = Object.entries(keptValues ?? {});
    if (kept.length === 0) return transformErrors;
    // The server takes the mask back as the value it stands for (lib/callPayload.ts).
    return (errors: RJSFValidationError[]) =>
      transformErrors(errors).filter((error) => !kept.some(([field, value]) => fieldOf(error.property) === field && current.current[field] === value));
  }, [keptValues]);
  useEffect(() => {
    if (validateAtOnce) formRef.current?.validateForm();
  }, [validateAtOnce]);

  const uiSchema = useMemo(() => {
    const description = form.uiSchema['ui:description'];
    return {
      ...form.uiSchema,
      ...(titled ? {} : { 'ui:title': undefined }),
      'ui:description': titled && typeof description === 'string' ? interpolate(description, browserLookup()) : undefined,
      'ui:submitButtonOptions': { norender: true },
    };
  }, [form, titled]);

  return (
    <Form<FormData>
      ref={formRef}
      className="step-form"
      schema={form.schema}
      uiSchema={uiSchema}
      validator={form.validator}
      widgets={formWidgets}
      templates={templates}
      formData={formData}
      formContext={formContext}
      onChange={onChange}
      onBlur={onBlur}
      onSubmit={onSubmit}
      onError={onError}
      transformErrors={transform}
      extraErrors={extraErrors}
      liveValidate="onChange"
      showErrorList={validateAtOnce ? false : 'top'}
      noHtml5Validate
      focusOnFirstError={!validateAtOnce}
      experimental_defaultFormStateBehavior={{ constAsDefaults: 'never' }}
    >
      {children}
    </Form>
  );
}

/** The submit button's text from the UI schema. */
export function submitTextOf(form: LoadedForm): string | undefined {
  return (form.uiSchema['ui:submitButtonOptions'] as { submitText?: string } | undefined)?.submitText;
}
