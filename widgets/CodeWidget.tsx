import type { WidgetProps } from '@rjsf/utils';
import { emptyToUndefined, onlyDigits } from './inputText';
import { useCleanedInput } from './useCleanedInput';
import { cx, hasErrors, inputStateProps, optionNumber, optionString } from './widgetProps';

const DEFAULT_CODE_LENGTH = 4;

/**
 * A one-time code: digits only, 4 of them, offered by the phone's SMS autofill
 * (`autocomplete="one-time-code"`). A text input with the numeric keypad (`inputMode`) where the
 * spec has a number input, a departure on purpose (docs/departures.md): a number input drops a leading 0 and
 * takes no pasted text. A pasted "Your code is 1234" keeps its digits; the length is enforced here
 * rather than with the `maxlength` attribute, which would cut a paste to "Your" before the digits
 * are picked out.
 *
 * ui:placeholder. ui:options: length (4), autocomplete ("one-time-code").
 */
export default function CodeWidget(props: WidgetProps) {
  const { id, value, placeholder, options, htmlName, onChange, onBlur, onFocus } = props;
  const code = typeof value === 'string' ? value : '';
  const length = optionNumber(options, 'length') ?? DEFAULT_CODE_LENGTH;
  const invalid = hasErrors(props);
  const { ref, handleChange } = useCleanedInput((raw) => onlyDigits(raw, length), onChange);

  return (
    <input
      ref={ref}
      id={id}
      name={htmlName || id}
      type="text"
      inputMode="numeric"
      pattern="[0-9]*"
      autoComplete={optionString(options, 'autocomplete') ?? 'one-time-code'}
      autoCapitalize="off"
      autoCorrect="off"
      spellCheck={false}
      enterKeyHint="done"
      className={cx('w-input', 'w-code', invalid && 'w-input--invalid')}
      value={code}
      placeholder={placeholder || undefined}
      {...inputStateProps(props)}
      onChange={handleChange}
      onBlur={(event) => onBlur(id, emptyToUndefined(onlyDigits(event.target.value, length)))}
      onFocus={() => onFocus(id, emptyToUndefined(code))}
    />
  );
}
