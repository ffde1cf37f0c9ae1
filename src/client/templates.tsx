/**
 * rjsf templates for the step page. Errors are computed on every change (the whole form is
 * validated, which costs well under a millisecond precompiled) but a field shows its error only
 * once the driver touched it, or after a submit attempt: rjsf has no such mode (#512).
 */
import { getDefaultRegistry } from '@rjsf/core';
import { errorId, type FieldErrorProps, type TemplatesType, type WidgetProps } from '@rjsf/utils';

export interface StepFormContext {
  /** Ids of the fields the driver changed or left. */
  touched: ReadonlySet<string>;
  /** Submit attempts so far; errors show everywhere once it is above 0. */
  submitCount: number;
  /** The current values, for widgets that depend on a sibling (city on state). */
  formData: Record<string, unknown>;
}

function FieldErrorTemplate({ errors = [], fieldPathId, registry }: FieldErrorProps) {
  const context = registry.formContext as StepFormContext | undefined;
  const id = fieldPathId.$id;
  const visible = !!context && (context.submitCount > 0 || context.touched.has(id));
  const first = errors.find((error) => !!error);
  if (!visible || !first) return null;
  return (
    <p id={errorId(fieldPathId)} className="field-error" role="alert">
      {first}
    </p>
  );
}

const DefaultBaseInput = getDefaultRegistry().templates.BaseInputTemplate;

/** The default input, plus `maxLength` (ui:options, else the schema's) and `inputMode` from ui:options. */
function BaseInputTemplate(props: WidgetProps) {
  const maxLength = (props.options.maxLength as number | undefined) ?? props.schema.maxLength;
  const inputMode = props.options.inputMode as WidgetProps['inputMode'];
  return <DefaultBaseInput {...props} maxLength={maxLength} inputMode={inputMode} />;
}

export const templates: Partial<TemplatesType> = { FieldErrorTemplate, BaseInputTemplate };
