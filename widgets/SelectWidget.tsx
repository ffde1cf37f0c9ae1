import { enumOptionsIndexForValue, enumOptionsValueForIndex, type WidgetProps } from '@rjsf/utils';
import type { ChangeEvent } from 'react';
import { cx, describedBy, hasErrors } from './widgetProps';

/**
 * Every list of choices of a schema's `enum` (the gender), drawn like the state and city lists:
 * the same box, arrow and error look, `aria-invalid` once its error shows. Replaces rjsf's own
 * select (registered as `SelectWidget`); options are addressed by their index, as rjsf's are.
 */
export default function SelectWidget(props: WidgetProps) {
  const { id, htmlName, options, value, placeholder, disabled, readonly, autofocus, onChange, onBlur, onFocus } = props;
  const { enumOptions = [], enumDisabled = [], emptyValue } = options;
  const invalid = hasErrors(props);
  const selected = enumOptionsIndexForValue(value, enumOptions, false);
  const valueOf = (event: ChangeEvent<HTMLSelectElement>) => enumOptionsValueForIndex(event.target.value, enumOptions, emptyValue);
  return (
    <div className="w-select">
      <select
        id={id}
        name={htmlName || id}
        className={cx('w-select__control', invalid && 'w-select__control--invalid')}
        value={typeof selected === 'undefined' ? '' : String(selected)}
        disabled={disabled || readonly}
        autoFocus={autofocus}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy(id)}
        onChange={(event) => onChange(valueOf(event))}
        onBlur={(event) => onBlur(id, valueOf(event))}
        onFocus={(event) => onFocus(id, valueOf(event))}
      >
        <option value="">{placeholder}</option>
        {enumOptions.map((option, index) => (
          <option key={String(option.value)} value={String(index)} disabled={enumDisabled.includes(option.value)}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}
