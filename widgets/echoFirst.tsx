import type { WidgetProps } from '@rjsf/utils';
import { useCallback, useReducer, useRef, type ComponentType } from 'react';

/**
 * Typing shows at once; the form hears of it after the next paint.
 *
 * A change to one field makes rjsf work out the whole form again (defaults, live validation, every
 * field's props), which on a slow phone takes longer than a frame. A text field wrapped here shows
 * the key pressed by itself, right away, and hands the form its value after the browser has
 * painted it. Keys pressed before then reach the form as one change.
 *
 * Nothing waits past the moment it matters: every waiting value reaches the form before a field
 * loses the focus (so before a button's click), before Enter submits the form, and at once when
 * the page is hidden.
 */

const waiting = new Map<string, () => void>();
let scheduled = false;

/** Hands the form every value still waiting, in the order they were typed. */
function deliverWaiting() {
  scheduled = false;
  const deliveries = [...waiting.values()];
  waiting.clear();
  for (const deliver of deliveries) deliver();
}

/**
 * Enter in a field submits its form at once, with the data the form holds then. With values still
 * on their way, it is held back: the values are handed over, and the form is submitted once it
 * has taken them (rjsf applies a change at its next render).
 */
function submitAfterDelivery(event: KeyboardEvent) {
  const field = event.target;
  if (event.key !== 'Enter' || waiting.size === 0 || !(field instanceof HTMLInputElement) || !field.form) return;
  event.preventDefault();
  deliverWaiting();
  const { form } = field;
  setTimeout(() => form.requestSubmit(), 0);
}

let listening = false;
function listenOnce() {
  if (listening) return;
  listening = true;
  // Capture, on the document: before the field's own blur, and before Enter's own submission.
  document.addEventListener('focusout', deliverWaiting, true);
  document.addEventListener('keydown', submitAfterDelivery, true);
  document.addEventListener('visibilitychange', deliverWaiting);
}

function deliverAfterPaint(id: string, deliver: () => void) {
  listenOnce();
  waiting.set(id, deliver);
  if (scheduled) return;
  scheduled = true;
  // A frame's callbacks run before it is painted; a task queued from one runs after.
  requestAnimationFrame(() => setTimeout(deliverWaiting, 0));
}

/** The widget, showing what is typed into it before the form has taken it. */
export function echoFirst(Widget: ComponentType<WidgetProps>): ComponentType<WidgetProps> {
  function EchoFirst(props: WidgetProps) {
    const [, showTyped] = useReducer((count: number) => count + 1, 0);
    // What was typed and is on its way to the form; the form's own value once it arrived.
    const typed = useRef<{ value: unknown } | null>(null);
    const onChangeNow = useRef(props.onChange);
    onChangeNow.current = props.onChange;
    const { id } = props;
    const onChange = useCallback(
      (...change: Parameters<WidgetProps['onChange']>) => {
        typed.current = { value: change[0] };
        showTyped();
        deliverAfterPaint(id, () => {
          typed.current = null;
          onChangeNow.current(...change);
        });
      },
      [id],
    );
    return <Widget {...props} value={typed.current ? typed.current.value : props.value} onChange={onChange} />;
  }
  EchoFirst.displayName = `EchoFirst(${Widget.displayName ?? Widget.name})`;
  return EchoFirst;
}
