import type { WidgetProps } from '@rjsf/utils';
import { emptyToUndefined, usPhoneDigits } from './inputText';
import { useCleanedInput } from './useCleanedInput';
import { cx, hasErrors, inputStateProps, optionString } from './widgetProps';

/**
 * A US phone number: a fixed "+1" beside an input that keeps only the 10 national digits.
 * Dashes, spaces and brackets are dropped as they are typed; a pasted "+1 (201) 555-0123" becomes
 * "2015550123". The value never holds the +1 (the flow adds it to the payload).
 *
 * ui:placeholder. ui:options: prefix ("+1"), autocomplete ("tel-national").
 */
export default function UsPhoneWidget(props: WidgetProps) {
  const { id, value, placeholder, options, disabled, readonly, htmlName, onChange, onBlur, onFocus } = props;
  const digits = typeof value === 'string' ? value : '';
  const prefix = optionString(options, 'prefix') ?? '+1';
  const prefixId = `${id}__prefix`;
  const invalid = hasErrors(props);
  const { ref, handleChange } = useCleanedInput((raw) => usPhoneDigits(raw, digits), onChange);

  return (
    <div className={cx('w-phone', invalid && 'w-phone--invalid', (disabled || readonly) && 'w-phone--disabled')}>
      {/* Read out with the input (aria-describedby), so the fixed country code is not a surprise. */}
      <span id={prefixId} className="w-phone__prefix">
        {prefix}
      </span>
      <input
        ref={ref}
        id={id}
        name={htmlName || id}
        type="tel"
        inputMode="numeric"
        autoComplete={optionString(options, 'autocomplete') ?? 'tel-national'}
        className="w-phone__control"
        value={digits}
        placeholder={placeholder || undefined}
        {...inputStateProps(props, prefixId)}
        onChange={handleChange}
        onBlur={(event) => onBlur(id, emptyToUndefined(usPhoneDigits(event.target.value, digits)))}
        onFocus={() => onFocus(id, emptyToUndefined(digits))}
      />
    </div>
  );
}
