/**
 * Text clean-up for the digit inputs (phone, codes, SSN). Pure functions: the widgets call them on
 * every change, and the tests pin down what a typed or pasted string becomes.
 */

/** A US phone number without its +1: the national number has 10 digits. */
export const US_PHONE_DIGITS = 10;

/** An empty string is "no value" in the form data, so `required` catches it. */
export function emptyToUndefined(value: string): string | undefined {
  return value === '' ? undefined : value;
}

/** Keeps only the digits, at most `max` of them (the first ones: extra keys are ignored). */
export function onlyDigits(raw: string, max: number = Number.POSITIVE_INFINITY): string {
  return raw.replace(/\D+/g, '').slice(0, max);
}

/**
 * The 10 national digits of what was typed, pasted or autofilled into the phone input.
 *
 * - Anything that is not a digit is dropped: "(201) 555-0123" → "2015550123".
 * - A paste or autofill that carries the country code ("+1 (201) 555-0123", "1-201-555-0123")
 *   brings more than 10 digits at once: the national number is the last 10.
 * - One more digit typed on a full number is ignored, as `maxLength` would (the input has no
 *   `maxLength` attribute, because that would cut a pasted "+1 (201) 555-0123" to "+1 (201) 5"
 *   before this function sees it).
 */
export function usPhoneDigits(raw: string, previous = ''): string {
  const digits = raw.replace(/\D+/g, '');
  if (digits.length <= US_PHONE_DIGITS) return digits;
  const previousDigits = previous.replace(/\D+/g, '');
  if (digits.length === previousDigits.length + 1 && previousDigits.length >= US_PHONE_DIGITS) {
    return previousDigits.slice(0, US_PHONE_DIGITS);
  }
  return digits.slice(-US_PHONE_DIGITS);
}

/**
 * Where the caret belongs after the input's text was cleaned: after as many digits as stood
 * before it in the raw text, so typing a dash in the middle does not throw the caret to the end.
 */
export function caretAfterCleaning(raw: string, caret: number, cleaned: string): number {
  const digitsBefore = raw.slice(0, caret).replace(/\D+/g, '').length;
  return Math.min(digitsBefore, cleaned.length);
}
