import type { InputHTMLAttributes } from 'react';
import { errorId, helpId, type WidgetProps } from '@rjsf/utils';
import type { Flow } from '../src/shared/flow';
import type { FormValues } from './formValues';
import type { TouchedFields } from './touchedFields';

export type WidgetTexts = NonNullable<Flow['messages']['widgets']>;

/**
 * Small readers shared by the widgets. `ui:options` values arrive untyped (ops staff write them
 * in JSON), so every option is read through one of these and falls back when it has the wrong
 * type instead of breaking the render.
 */

type Options = WidgetProps['options'];

export function optionString(options: Options, key: string): string | undefined {
  const value = options[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function optionNumber(options: Options, key: string): number | undefined {
  const value = options[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function optionBoolean(options: Options, key: string): boolean | undefined {
  const value = options[key];
  return typeof value === 'boolean' ? value : undefined;
}

/**
 * What the step page shares with every widget through rjsf's `formContext`
 * (src/client/form/templates.tsx): the form's current values as a store (a city list depends on the
 * chosen state), how many times submit was attempted, and which fields the driver touched. All
 * optional here, so a widget also works in a form that shares none of it.
 */
export interface StepFormContext {
  values?: FormValues;
  /** What the widgets show when a field's ui:options say nothing else, in the page's language (the flow's messages.widgets). */
  widgetTexts?: WidgetTexts;
  submitCount?: number;
  /** Which fields the driver touched; none shared: every field's errors show at once. */
  touched?: TouchedFields;
  /** The reviewer's reason for each field to fix (by id) that still holds what was sent: shown at once. */
  fixes?: ReadonlyMap<string, string>;
  /**
   * The day (YYYY-MM-DD) the date limits are worked out for while a page the server drew is
   * hydrated: the server's, so both sides draw the same limits; unset, the device's today.
   */
  drawnToday?: string;
}

/**
 * rjsf 6 hands widgets the form context as `registry.formContext` (v5 passed `formContext` as a
 * prop); a `formContext` prop, if given, wins so a widget can also be rendered on its own.
 */
export function formContextOf(props: WidgetProps): StepFormContext {
  const context: unknown = props.formContext ?? props.registry?.formContext;
  return context !== null && typeof context === 'object' ? (context as StepFormContext) : {};
}

/** `aria-describedby`: the field's error and help (rendered by the templates), plus the widget's own hints. */
export function describedBy(id: string, ...own: Array<string | false | undefined>): string {
  return [errorId(id), helpId(id), ...own.filter((part): part is string => typeof part === 'string')].join(' ');
}

type InputState = Pick<InputHTMLAttributes<HTMLInputElement>, 'disabled' | 'readOnly' | 'autoFocus' | 'aria-invalid' | 'aria-describedby' | 'onKeyDown'>;

/**
 * The state a text-like input takes from its widget props, spread where the input lists it:
 * disabled, read-only, autofocus, `aria-invalid` and `aria-describedby` (with the widget's own
 * hints), and the key handler a wrapper gives it (echoFirst.tsx: Enter). The value and the change
 * and focus handlers stay with each widget, which cleans what it emits its own way.
 */
export function inputStateProps(props: WidgetProps, ...ownHints: Array<string | false | undefined>): InputState {
  return {
    disabled: props.disabled,
    readOnly: props.readonly,
    autoFocus: props.autofocus,
    'aria-invalid': hasErrors(props) || undefined,
    'aria-describedby': describedBy(props.id, ...ownHints),
    onKeyDown: props.onKeyDown,
  };
}

/**
 * Whether the field's errors are on screen, for `aria-invalid`, the error look and hiding hints:
 * the errors it is handed. The whole form is validated on every change, but the step page hands a
 * field its errors only once they show (touched, or after a submit attempt:
 * src/client/form/templates.tsx), so a screen reader never hears "invalid" on a field that shows
 * no message.
 */
export function hasErrors(props: WidgetProps): boolean {
  if (props.hideError) return false;
  // A fix a reviewer asked for is shown on its field from the start (templates.tsx).
  if (formContextOf(props).fixes?.has(props.id)) return true;
  return (props.rawErrors?.length ?? 0) > 0;
}

/** Joins class names, skipping the falsy ones. */
export function cx(...names: Array<string | false | null | undefined>): string {
  return names.filter(Boolean).join(' ');
}

/** The id of a widget's own hint line (not rjsf's help, which comes from `ui:help`). */
export function hintId(id: string): string {
  return `${id}__hint`;
}

/** A text a widget shows: its field's ui:options `option`, else the words every widget of the page shares (`widgetTexts`). */
export function widgetText(props: WidgetProps, option: string, shared: keyof WidgetTexts): string {
  return optionString(props.options, option) ?? formContextOf(props).widgetTexts?.[shared] ?? '';
}
