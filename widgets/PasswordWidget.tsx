import { useState } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { emptyToUndefined, onlyDigits } from './inputText';
import { useCleanedInput } from './useCleanedInput';
import { cx, hasErrors, inputStateProps, optionBoolean, optionNumber, optionString, widgetText } from './widgetProps';

function EyeIcon({ open }: { open: boolean }) {
  return (
    <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
      <path
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
        d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12Z"
      />
      <circle cx="12" cy="12" r="3" fill="none" stroke="currentColor" strokeWidth="2" />
      {!open && <path stroke="currentColor" strokeWidth="2" strokeLinecap="round" d="M4 4l16 16" />}
    </svg>
  );
}

/**
 * A masked input with a show/hide toggle, for passwords and for the SSN.
 *
 * ui:autocomplete (e.g. "new-password"; "off" for the SSN). ui:placeholder. ui:options:
 * digitsOnly (keep only digits, numeric keypad), inputMode, maxLength (default: the schema's
 * maxLength), showText / hideText (the toggle's accessible name: "Show password" / "Hide password").
 */
export default function PasswordWidget(props: WidgetProps) {
  const { id, value, schema, placeholder, options, disabled, readonly, htmlName, onChange, onBlur, onFocus } = props;
  const text = typeof value === 'string' ? value : '';
  const [visible, setVisible] = useState(false);

  const digitsOnly = optionBoolean(options, 'digitsOnly') ?? false;
  const maxLength = optionNumber(options, 'maxLength') ?? (typeof schema.maxLength === 'number' ? schema.maxLength : undefined);
  const inputMode = (optionString(options, 'inputMode') ?? (digitsOnly ? 'numeric' : undefined)) as 'numeric' | 'text' | 'decimal' | 'tel' | undefined;
  const autoComplete = optionString(options, 'autocomplete') ?? (digitsOnly ? 'off' : undefined);
  const showText = widgetText(props, 'showText', 'showPassword');
  const hideText = widgetText(props, 'hideText', 'hidePassword');
  const invalid = hasErrors(props);

  const clean = (raw: string) => (digitsOnly ? onlyDigits(raw, maxLength) : raw);
  const { ref, handleChange } = useCleanedInput(clean, onChange);

  return (
    <div className={cx('w-password', invalid && 'w-password--invalid', (disabled || readonly) && 'w-password--disabled')}>
      <input
        ref={ref}
        id={id}
        name={htmlName || id}
        type={visible ? 'text' : 'password'}
        className="w-password__control"
        value={text}
        placeholder={placeholder || undefined}
        inputMode={inputMode}
        pattern={digitsOnly ? '[0-9]*' : undefined}
        autoComplete={autoComplete}
        // While shown as text, the keyboard must not capitalise or "correct" what is typed.
        autoCapitalize="off"
        autoCorrect="off"
        spellCheck={false}
        // A digits-only field cuts the length itself, so a pasted "123-45-6789" keeps its 9 digits;
        // the attribute would cut the paste to "123-45-67" first.
        maxLength={digitsOnly ? undefined : maxLength}
        {...inputStateProps(props)}
        onChange={handleChange}
        onBlur={(event) => onBlur(id, emptyToUndefined(clean(event.target.value)))}
        onFocus={() => onFocus(id, emptyToUndefined(text))}
      />
      <button
        type="button"
        className="w-password__toggle"
        aria-controls={id}
        aria-pressed={visible}
        aria-label={visible ? hideText : showText}
        disabled={disabled}
        onClick={() => setVisible((shown) => !shown)}
      >
        <EyeIcon open={!visible} />
      </button>
    </div>
  );
}
