import type { WidgetProps } from '@rjsf/utils';
import type { ReactNode } from 'react';
import { cx, describedBy, hasErrors } from './widgetProps';

interface ChoiceSelectProps {
  widget: WidgetProps;
  /** The option chosen, '' for none. */
  value: string;
  /** The form's value for an option's value ('' is none). */
  toValue: (option: string) => unknown;
  /** Besides the widget's own disabled and read-only (a list still loading). */
  unavailable?: boolean;
  busy?: boolean;
  autoComplete?: string;
  /** The ids of the widget's own hint lines under the select. */
  hints?: string[];
  children: ReactNode;
}

/**
 * The select of every list of choices (a schema's enum, the states, the cities): one box, one
 * error look, `aria-invalid` once the field's error shows, the placeholder as the empty choice.
 */
export function ChoiceSelect({ widget, value, toValue, unavailable = false, busy = false, autoComplete, hints = [], children }: ChoiceSelectProps) {
  const { id, htmlName, placeholder, disabled, readonly, autofocus, onChange, onBlur, onFocus } = widget;
  const invalid = hasErrors(widget);
  return (
    <select
      id={id}
      name={htmlName || id}
      className={cx('w-select__control', invalid && 'w-select__control--invalid')}
      value={value}
      disabled={disabled || readonly || unavailable}
      autoFocus={autofocus}
      autoComplete={autoComplete}
      aria-invalid={invalid || undefined}
      aria-busy={busy || undefined}
      aria-describedby={describedBy(id, ...hints)}
      onChange={(event) => onChange(toValue(event.target.value))}
      onBlur={(event) => onBlur(id, toValue(event.target.value))}
      onFocus={(event) => onFocus(id, toValue(event.target.value))}
    >
      <option value="">{placeholder}</option>
      {children}
    </select>
  );
}
