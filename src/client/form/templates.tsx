/**
 * rjsf templates for the step page. Errors are computed on every change (the whole form is
 * validated, which costs well under a millisecond precompiled) but a field shows its error only
 * once the driver touched it, or after a submit attempt (ShownErrorsField): rjsf has no such mode
 * (#512). A fix a reviewer asked for shows on its field at once.
 */
import { getDefaultRegistry } from '@rjsf/core';
import {
  errorId,
  getSchemaType,
  type ErrorListProps,
  type Field,
  type FieldErrorProps,
  type FieldProps,
  type RegistryFieldsType,
  type TemplatesType,
  type TitleFieldProps,
  type WidgetProps,
} from '@rjsf/utils';
import { fieldOf, orderedFields } from '../../shared/errors.js';
import { flow } from '../runtime/flow.js';
import { echoFirst } from '../../../widgets/echoFirst.js';
import { useFieldTouched } from '../../../widgets/touchedFields.js';
import { hasErrors, type StepFormContext } from '../../../widgets/widgetProps.js';

export type { StepFormContext };

function FieldErrorTemplate({ errors = [], fieldPathId, registry }: FieldErrorProps) {
  const context = (registry.formContext ?? {}) as StepFormContext;
  // A reviewer's fix shows from the start, until the driver changes the field (StepPage.tsx).
  const message = errors.find((error) => !!error) ?? context.fixes?.get(fieldPathId.$id);
  if (!message) return null;
  return (
    <p id={errorId(fieldPathId)} className="field-error" role="alert">
      {message}
    </p>
  );
}

/**
 * After a submit with mistakes, the answers to change at the top of the form, each a link to its
 * field (the focus goes to the first one, by rjsf's focusOnFirstError); it shrinks as they are fixed.
 */
function ErrorListTemplate({ errors, schema, uiSchema, registry }: ErrorListProps) {
  const context = (registry.formContext ?? {}) as StepFormContext;
  if (!context.submitCount) return null;
  // In the order the form shows its fields.
  const order = orderedFields(Object.keys(schema.properties ?? {}), uiSchema?.['ui:order'] as string[] | undefined);
  const fields = [...new Map(errors.map((error) => [fieldOf(error.property), error.message ?? ''])).entries()]
    .filter(([field]) => field !== '')
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b));
  if (fields.length === 0) return null;
  // A box has no title of its own (its text is its label): its message says enough.
  const labelOf = (field: string, message: string) => {
    const title = (uiSchema?.[field] as { 'ui:title'?: string } | undefined)?.['ui:title'];
    return title ? `${title}: ${message}` : message;
  };
  return (
    <section className="error-summary" aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">{flow.messages.errorSummary}</h2>
      <ul>
        {fields.map(([field, message]) => (
          <li key={field}>
            <a
              href={`#root_${field}`}
              onClick={(event) => {
                // To the field itself, without a new address in the history.
                event.preventDefault();
                document.getElementById(`root_${field}`)?.focus();
              }}
            >
              {labelOf(field, message)}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The step's title is the page's heading (the forms are flat, so only the root has one). */
function TitleFieldTemplate({ id, title }: TitleFieldProps) {
  return (
    <h1 id={id} className="step-title">
      {title}
    </h1>
  );
}

const DefaultBaseInput = getDefaultRegistry().templates.BaseInputTemplate;

/** The default input, plus `maxLength` (ui:options, else the schema's), `inputMode` and `aria-invalid`. */
function BaseInputTemplate(props: WidgetProps) {
  const maxLength = (props.options.maxLength as number | undefined) ?? props.schema.maxLength;
  const inputMode = props.options.inputMode as WidgetProps['inputMode'];
  return <DefaultBaseInput {...props} maxLength={maxLength} inputMode={inputMode} aria-invalid={hasErrors(props) || undefined} />;
}

/** rjsf's own, which ShownErrorsField hands each field on to. */
const DefaultSchemaField = getDefaultRegistry().fields.SchemaField as Field;

/**
 * Every field, handed its errors once they show: once the driver touched it, or everywhere after a
 * submit attempt (a form that shares no touched fields, the studio's, shows them at once). The
 * form's first change validates it whole and finds an error on every empty field: handed down,
 * each would have rjsf draw that field again to show nothing (the whole profile form for one key,
 * ~80 ms at the bench's slow phone); held back, rjsf's memoised fields stay as they are. A field
 * holding others (an object, an array) hands each of them theirs, judged on its own.
 */
function ShownErrorsField(props: FieldProps) {
  const { touched, submitCount } = (props.registry.formContext ?? {}) as StepFormContext;
  const fieldTouched = useFieldTouched(touched, props.fieldPathId.$id);
  const holdsOthers = ['object', 'array'].includes(String(getSchemaType(props.schema)));
  const shown = holdsOthers || (submitCount ?? 0) > 0 || fieldTouched;
  return <DefaultSchemaField {...props} errorSchema={shown ? props.errorSchema : undefined} />;
}

export const fields: RegistryFieldsType = { SchemaField: ShownErrorsField };

export const templates: Partial<TemplatesType> = {
  ErrorListTemplate,
  FieldErrorTemplate,
  // Every text field rjsf draws itself (name, licence number, street…): typing shows before the form re-validates.
  BaseInputTemplate: echoFirst(BaseInputTemplate),
  TitleFieldTemplate,
};
