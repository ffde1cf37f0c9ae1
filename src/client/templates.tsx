/**
 * rjsf templates for the step page. Errors are computed on every change (the whole form is
 * validated, which costs well under a millisecond precompiled) but a field shows its error only
 * once the driver touched it, or after a submit attempt: rjsf has no such mode (#512). A fix a
 * reviewer asked for shows on its field at once.
 */
import { getDefaultRegistry } from '@rjsf/core';
import { errorId, type FieldErrorProps, type TemplatesType, type TitleFieldProps, type WidgetProps } from '@rjsf/utils';
import { errorsShown, hasErrors, type StepFormContext } from '../../widgets/widgetProps.js';

export type { StepFormContext };

function FieldErrorTemplate({ errors = [], fieldPathId, registry }: FieldErrorProps) {
  const context = (registry.formContext ?? {}) as StepFormContext;
  const shown = errorsShown(context, fieldPathId.$id) ? errors.find((error) => !!error) : undefined;
  // A reviewer's fix shows from the start, until the driver changes the field (StepPage.tsx).
  const message = shown ?? context.fixes?.get(fieldPathId.$id);
  if (!message) return null;
  return (
    <p id={errorId(fieldPathId)} className="field-error" role="alert">
      {message}
    </p>
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

export const templates: Partial<TemplatesType> = { FieldErrorTemplate, BaseInputTemplate, TitleFieldTemplate };
