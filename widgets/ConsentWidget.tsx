import { useMemo } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { consentParts } from './consentText';
import { cx, describedBy, formContextOf, hasErrors, optionString } from './widgetProps';

/**
 * A consent checkbox whose label is `ui:options.text`, with `{key}` placeholders turned into
 * external links from `ui:options.links[key] = { label, href }`. Value: true / false.
 *
 * When the field has errors after a submit attempt (`formContext.submitCount`), the row shakes,
 * once per attempt. The animation restarts by swapping between two identical keyframe names on
 * odd and even attempts rather than by remounting the row with a new key: a remount would take the
 * keyboard focus off the checkbox, where rjsf's focusOnFirstError may just have put it.
 */
export default function ConsentWidget(props: WidgetProps) {
  const { id, value, label, options, disabled, readonly, autofocus, htmlName, onChange, onBlur, onFocus } = props;
  const checked = value === true;
  const text = optionString(options, 'text') ?? label;
  const links = options.links;
  const parts = useMemo(() => consentParts(text, links), [text, links]);

  const invalid = hasErrors(props);
  const submitCount = formContextOf(props).submitCount ?? 0;
  const shake = invalid && submitCount > 0 ? (submitCount % 2 === 1 ? 'w-consent--shake-odd' : 'w-consent--shake-even') : undefined;

  return (
    <div className={cx('w-consent', invalid && 'w-consent--invalid', shake, (disabled || readonly) && 'w-consent--disabled')}>
      <input
        id={id}
        name={htmlName || id}
        type="checkbox"
        className="w-consent__box"
        checked={checked}
        disabled={disabled || readonly}
        autoFocus={autofocus}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy(id)}
        onChange={(event) => onChange(event.target.checked)}
        onBlur={(event) => onBlur(id, event.target.checked)}
        onFocus={(event) => onFocus(id, event.target.checked)}
      />
      {/* A tap on a link opens the document without ticking the box: a label does not activate its
          control when the tap lands on interactive content inside it (HTML's label rules). */}
      <label htmlFor={id} className="w-consent__text">
        {parts.map((part, index) =>
          part.kind === 'text' ? (
            <span key={index}>{part.text}</span>
          ) : (
            <a key={index} className="w-consent__link" href={part.href} target="_blank" rel="noopener noreferrer">
              {part.label}
            </a>
          ),
        )}
      </label>
    </div>
  );
}
