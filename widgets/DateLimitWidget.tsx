import type { ChangeEvent } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { dateRuleHint, datePickerLimits, type DateFieldSchema } from './dateRule';
import { emptyToUndefined } from './inputText';
import { cx, formContextOf, hasErrors, hintId, inputStateProps } from './widgetProps';

/**
 * A native date picker limited by the schema's relative-date rule: `minAgeYears` sets the latest
 * selectable date (18 years ago), `minMonthsAhead` the earliest (6 months from today). The limits
 * come from the same keywords the validator enforces, worked out for today (src/shared/dates.ts).
 * The rule's message from the schema is shown as a hint while the field has no error.
 *
 * Value: "YYYY-MM-DD", or undefined when empty.
 */
export default function DateLimitWidget(props: WidgetProps) {
  const { id, value, schema, htmlName, placeholder, onChange, onBlur, onFocus } = props;
  const fieldSchema = schema as DateFieldSchema;
  const { drawnToday } = formContextOf(props);
  const { min, max } = datePickerLimits(fieldSchema, drawnToday ? new Date(`${drawnToday}T12:00:00`) : undefined);
  const invalid = hasErrors(props);
  const hint = invalid ? undefined : dateRuleHint(fieldSchema);
  const ownHintId = hint ? hintId(id) : undefined;
  const emit = (event: ChangeEvent<HTMLInputElement>) => emptyToUndefined(event.target.value);

  return (
    <div className="w-date">
      <input
        id={id}
        name={htmlName || id}
        type="date"
        className={cx('w-input', 'w-date__control', invalid && 'w-input--invalid')}
        value={typeof value === 'string' ? value : ''}
        min={min}
        max={max}
        placeholder={placeholder || undefined}
        {...inputStateProps(props, ownHintId)}
        onChange={(event) => onChange(emit(event))}
        onBlur={(event) => onBlur(id, emit(event))}
        onFocus={(event) => onFocus(id, emit(event))}
      />
      {hint && (
        <p id={ownHintId} className="w-hint">
          {hint}
        </p>
      )}
    </div>
  );
}
