import { useCallback, useLayoutEffect, useRef, type ChangeEvent } from 'react';
import { caretAfterCleaning, emptyToUndefined } from './inputText';

function setCaret(input: HTMLInputElement, position: number): void {
  try {
    input.setSelectionRange(position, position);
  } catch {
    // Some input types (e.g. a date) have no selection; the caret is then the browser's business.
  }
}

/**
 * For inputs whose text the widget cleans as it is typed (digits only): the change handler that
 * cleans the text, reports it (empty as undefined), and keeps the caret where the user was
 * typing. Without the caret care, a rejected key (a dash, a letter) makes React put the old text
 * back and the caret jumps to the end, which on a phone means fighting the field.
 */
export function useCleanedInput(clean: (raw: string) => string, onChange: (value: string | undefined) => void) {
  const ref = useRef<HTMLInputElement>(null);
  // The caret to restore, for the text it belongs to.
  const pending = useRef<{ text: string; position: number } | null>(null);

  // Runs after every render: if the cleaned value arrived later than the key press (rjsf queues
  // its updates), the caret is placed again once React has written the new text. Only for that
  // text: a later key press must never be sent back to an old position.
  useLayoutEffect(() => {
    const input = ref.current;
    const caret = pending.current;
    if (!input || caret === null) return;
    pending.current = null;
    if (input.value === caret.text && input.ownerDocument.activeElement === input) setCaret(input, caret.position);
  });

  /** Call from `onChange` with the input, its raw text and the cleaned text that becomes the value. */
  const keep = useCallback((input: HTMLInputElement, raw: string, cleaned: string) => {
    if (raw === cleaned) {
      // The browser's caret is right; forget any caret from an earlier key.
      pending.current = null;
      return;
    }
    const position = caretAfterCleaning(raw, input.selectionStart ?? raw.length, cleaned);
    input.value = cleaned;
    setCaret(input, position);
    pending.current = { text: cleaned, position };
  }, []);

  function handleChange(event: ChangeEvent<HTMLInputElement>) {
    const raw = event.target.value;
    const cleaned = clean(raw);
    keep(event.target, raw, cleaned);
    onChange(emptyToUndefined(cleaned));
  }

  return { ref, handleChange };
}
