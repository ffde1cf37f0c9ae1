/**
 * A form step as drivers see it: its schema and UI schema rendered by rjsf with our widgets and
 * templates, validated on every change by its precompiled validator. The step page
 * (StepPage.tsx) puts the flow around it; the studio (studio/) shows it with a fixture's data.
 */
import Form, { type IChangeEvent } from '@rjsf/core';
import type { ErrorSchema, RJSFSchema, RJSFValidationError, ValidatorType } from '@rjsf/utils';
import { createPrecompiledValidator } from '@rjsf/validator-ajv8';
import { useCallback, useEffect, useMemo, useRef, type ReactNode } from 'react';
import { formVersion, loadForm, type FormModule } from 'virtual:forms';
import { DEFAULT_LOCALE, type Locale, type Translations } from '../../shared/locales.js';
import { translatorFor } from '../../shared/rjsfStrings.js';
import { loadOnce, prepareWith } from '../runtime/locale.js';
import { expandErrors, fieldOf, inFieldOrder, orderedFields } from '../../shared/errors.js';
import { interpolate } from '../../shared/flow.js';
import { isoDateOffset } from '../../shared/dates.js';
import { formWidgets } from '../../../widgets/index.js';
import { browserLookup } from '../runtime/stepFlow.js';
import { drawnToday, useHydrated } from '../runtime/serverPage.js';
import type { StepValues } from '../runtime/stepValues.js';
import { fields, templates, type StepFormContext } from './templates.js';

export interface LoadedForm extends FormModule {
  validator: ValidatorType<StepValues, RJSFSchema>;
  /** rjsf's own strings in the form's language (src/shared/rjsfStrings.ts). */
  translateString: ReturnType<typeof translatorFor>;
}

/** Each translated language's words of rjsf itself, in a chunk of their own. */
const RJSF_TRANSLATIONS: Partial<Record<Locale, () => Promise<{ default: unknown }>>> = {
  es: () => import('../../../locales/es/rjsf.json'),
};

const loadedForms = new Map<string, Promise<LoadedForm>>();

/**
 * A form's module (its own chunk, one per language) with its validator, loaded once per schema
 * name, language and version: the server's drawing stays loaded while `npm run dev` rebuilds the forms.
 */
export function loadStepForm(name: string, locale: Locale = DEFAULT_LOCALE): Promise<LoadedForm> {
  return loadOnce(loadedForms, `${name}\n${locale}\n${formVersion(name, locale)}`, async () => {
    const [module, rjsfStrings] = await Promise.all([loadForm(name, locale), RJSF_TRANSLATIONS[locale]?.()]);
    return {
      ...module,
      validator: createPrecompiledValidator<StepValues>(module.validateFns, module.schema),
      translateString: translatorFor(locale, rjsfStrings?.default as Translations | undefined),
    };
  });
}

// The forms already loaded, in a language the page switches to (locale.ts).
prepareWith((locale) => Promise.all([...new Set([...loadedForms.keys()].map((key) => key.split('\n')[0]!))].map((name) => loadStepForm(name, locale))));

/**
 * The validator, judging no field while it holds the value kept for it: a sensitive value's mask,
 * which the schema can't judge and the server takes back as the value it stands for
 * (src/server/lib/callReader/checkCall.ts). It filters what the validator found in the data it was given, so it holds
 * for the data of this very key press.
 */
function withKeptValues(validator: LoadedForm['validator'], kept: Record<string, unknown>): LoadedForm['validator'] {
  const fields = Object.keys(kept);
  if (fields.length === 0) return validator;
  const judged: LoadedForm['validator'] = Object.create(validator);
  judged.validateFormData = (formData, ...rest) => {
    const found = validator.validateFormData(formData, ...rest);
    const holding = fields.filter((field) => formData?.[field] === kept[field]);
    if (holding.length === 0) return found;
    const errorSchema: ErrorSchema<StepValues> = { ...found.errorSchema };
    for (const field of holding) delete errorSchema[field];
    return { errors: found.errors.filter((error) => !holding.includes(fieldOf(error.property))), errorSchema };
  };
  return judged;
}

interface StepFormViewProps {
  form: LoadedForm;
  /**
   * The values the form opens with. From then on the form keeps its own (rjsf's uncontrolled
   * mode) and reports each change through `onChange`: a page that draws again for another reason
   * (a field touched, the server's messages) never hands it values older than a change on its way.
   */
  initialData?: StepValues;
  formContext: StepFormContext;
  onChange: (event: IChangeEvent<StepValues>, id?: string) => void;
  onBlur?: (id: string) => void;
  onSubmit?: (event: IChangeEvent<StepValues>) => void;
  onError?: () => void;
  extraErrors?: ErrorSchema;
  /** Values kept from before that the schema can't judge (a sensitive value's mask): no error while a field holds its. */
  keptValues?: Record<string, unknown>;
  /** Validates the data given at once, without moving the focus (the studio); a driver's form waits for changes. */
  validateAtOnce?: boolean;
  /** Shows the form's title (its UI schema's) as the page's heading; a form inside a dialog has the dialog's. */
  titled?: boolean;
  /**
   * What was typed into the server's drawn form before its scripts ran (the form opens with it),
   * and into its inputs while it opened, before its handlers were attached (serverPage.ts): taken
   * into the form once it is on the page, as if typed then: validated, its messages shown.
   */
  typedBefore?: StepValues;
  typedMeanwhile?: () => StepValues;
  /** The only fields that may change (a document renewed after approval); the others are read-only. Undefined: any. */
  onlyFields?: readonly string[];
  /** The submit button, when there is one. */
  children?: ReactNode;
}

export function StepFormView({
  form,
  initialData,
  formContext,
  onChange,
  onBlur,
  onSubmit,
  onError,
  extraErrors,
  keptValues,
  validateAtOnce = false,
  titled = true,
  typedBefore,
  typedMeanwhile,
  onlyFields,
  children,
}: StepFormViewProps) {
  const formRef = useRef<Form<StepValues>>(null);
  // The form is given the values it opens with until a field changes, and holds its own from then
  // on (given them again, it would set them back). Not from its first commit: hydration ending
  // draws this view again, and new values would have rjsf work its state out and draw every field.
  // (rjsf also reports, with no field, the defaults it filled in: given the values again, it fills the same.)
  const changed = useRef(false);
  const reportChange = useCallback(
    (event: IChangeEvent<StepValues>, id?: string) => {
      if (id !== undefined) changed.current = true;
      onChange(event, id);
    },
    [onChange],
  );
  // What was typed into the drawn form, taken as the form first commits (serverPage.ts forgets it then).
  const typed = useRef<StepValues | null>(null);
  useEffect(() => {
    typed.current = { ...typedBefore, ...typedMeanwhile?.() };
  }, [typedBefore, typedMeanwhile]);
  // Once the page is the browser's own (hydration over, and what it changed drawn), put through
  // rjsf's change as the keys would have come: reported by `onChange` (the field counts as
  // touched), validated, and drawn into the input again, which hydration may have set back to the
  // value it held. Each is typed from empty: the form opened holding what was typed before its
  // scripts ran (so that hydration found it in the inputs), and rjsf reports only a change.
  const hydrated = useHydrated();
  useEffect(() => {
    const rjsf = formRef.current;
    const values = typed.current;
    if (!hydrated || !rjsf || !values) return;
    typed.current = null;
    const fields = Object.keys(form.schema.properties ?? {});
    for (const [field, value] of Object.entries(values)) {
      if (!fields.includes(field)) continue;
      // Touched now, in the same draw as the change (rjsf reports a change once it has drawn it:
      // touched then, the message would show a draw later); from this change on the form holds
      // its own values, never handed its opening ones again.
      changed.current = true;
      onBlur?.(`root_${field}`);
      // rjsf types a field's value as the whole form's.
      rjsf.setFieldValue(field, undefined as unknown as StepValues);
      rjsf.setFieldValue(field, value as StepValues);
    }
  }, [hydrated, form, onBlur]);
  const validator = useMemo(() => withKeptValues(form.validator, keptValues ?? {}), [form, keptValues]);
  // The schema's own messages, each on its field (src/shared/errors.ts), in the order the form
  // shows the fields: a submit focuses the first, which is then the topmost, as the list says.
  const transformErrors = useMemo(() => {
    const order = orderedFields(Object.keys(form.schema.properties ?? {}), form.uiSchema['ui:order'] as string[] | undefined);
    return (errors: RJSFValidationError[]) => inFieldOrder(expandErrors(errors), order);
  }, [form]);
  useEffect(() => {
    if (validateAtOnce) formRef.current?.validateForm();
  }, [validateAtOnce]);

  // What the description names of the device (an email kept on it) is filled in once the server's
  // drawn page is hydrated; until then, and on a device that holds no such value, the description
  // reads its words without it. The UI schema and the context stay the same objects when hydration
  // changes nothing in them: rjsf's form would otherwise work its state out and draw its fields again.
  const description = form.uiSchema['ui:description'];
  const unfilled = form.uiSchema['ui:descriptionUnfilled'];
  const shownDescription =
    titled && typeof description === 'string' ? (interpolate(description, hydrated ? browserLookup() : () => undefined) ?? unfilled) : undefined;
  const uiSchema = useMemo(() => {
    const locked = onlyFields ? Object.keys(form.schema.properties ?? {}).filter((field) => !onlyFields.includes(field)) : [];
    return {
      ...form.uiSchema,
      ...Object.fromEntries(locked.map((field) => [field, { ...(form.uiSchema[field] as object | undefined), 'ui:readonly': true }])),
      ...(titled ? {} : { 'ui:title': undefined }),
      'ui:description': shownDescription,
      'ui:descriptionUnfilled': undefined,
      'ui:submitButtonOptions': { norender: true },
    };
  }, [form, titled, shownDescription, onlyFields]);
  // Date limits count from the day the server drew the page until hydration is over, when that day is not the device's.
  const drawnOn = hydrated ? undefined : drawnToday();
  const today = drawnOn !== undefined && drawnOn !== isoDateOffset(0, 0) ? drawnOn : undefined;
  const context = useMemo(() => (today ? { ...formContext, drawnToday: today } : formContext), [formContext, today]);

  return (
    <Form<StepValues>
      ref={formRef}
      className="step-form"
      schema={form.schema}
      uiSchema={uiSchema}
      validator={validator}
      widgets={formWidgets}
      templates={templates}
      fields={fields}
      translateString={form.translateString}
      formData={changed.current ? undefined : (initialData ?? {})}
      formContext={context}
      onChange={reportChange}
      onBlur={onBlur}
      onSubmit={onSubmit}
      onError={onError}
      transformErrors={transformErrors}
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
