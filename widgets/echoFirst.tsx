import type { WidgetProps } from '@rjsf/utils';
import { useCallback, useState, useTransition, type ComponentType, type KeyboardEvent } from 'react';

/**
 * Typing shows at once; the form takes it in a transition.
 *
 * A change to one field makes rjsf work out the whole form again (defaults, live validation, every
 * field's props), which on a slow phone takes longer than a frame. A text field wrapped here shows
 * the key pressed by itself, as an urgent update, and hands the value to the form in a transition
 * (React's startTransition): React renders the form between key presses, setting that work aside
 * when another key comes, so keys pressed meanwhile reach the form together.
 *
 * Nothing waits past the moment it matters: a value still in its transition is handed over as an
 * urgent update, which React applies at once, when the field loses the focus (so before a button's
 * click reads the form) and on Enter (before the submission it makes).
 */
export function echoFirst(Widget: ComponentType<WidgetProps>): ComponentType<WidgetProps> {
  function EchoFirst(props: WidgetProps) {
    const [inTransition, startFormChange] = useTransition();
    // The last change typed, shown until the form's transition has taken it.
    const [typed, setTyped] = useState<Parameters<WidgetProps['onChange']>>();
    const { onChange, onBlur, onKeyDown } = props;
    const change = useCallback(
      (...typedChange: Parameters<WidgetProps['onChange']>) => {
        setTyped(typedChange);
        startFormChange(() => onChange(...typedChange));
      },
      [onChange],
    );
    const handOver = () => {
      if (inTransition && typed) onChange(...typed);
    };
    const blur = (id: string, value: unknown) => {
      handOver();
      onBlur(id, value);
    };
    const keyDown = (event: KeyboardEvent<HTMLInputElement>) => {
      if (event.key === 'Enter') handOver();
      onKeyDown?.(event);
    };
    const shown = inTransition && typed ? typed[0] : props.value;
    return <Widget {...props} value={shown} onChange={change} onBlur={blur} onKeyDown={keyDown} />;
  }
  EchoFirst.displayName = `EchoFirst(${Widget.displayName ?? Widget.name})`;
  return EchoFirst;
}
