import { describe, expect, it } from 'vitest';
import { caretAfterCleaning, emptyToUndefined, onlyDigits, usPhoneDigits } from '../../widgets/inputText';

describe('usPhoneDigits (the usPhone widget)', () => {
  it('strips every non-digit as typed', () => {
    expect(usPhoneDigits('201-555')).toBe('201555');
    expect(usPhoneDigits('(201) 555-0123')).toBe('2015550123');
    expect(usPhoneDigits('20a1')).toBe('201');
  });

  it('keeps the last 10 digits of a pasted "+1 (201) 555-0123"', () => {
    expect(usPhoneDigits('+1 (201) 555-0123')).toBe('2015550123');
    expect(usPhoneDigits('1-201-555-0123', '')).toBe('2015550123');
    expect(usPhoneDigits('+1 201 555 0123', '201')).toBe('2015550123');
  });

  it('ignores an 11th digit typed on a full number', () => {
    expect(usPhoneDigits('20155501239', '2015550123')).toBe('2015550123');
    expect(usPhoneDigits('92015550123', '2015550123')).toBe('2015550123');
  });

  it('never holds more than 10 digits', () => {
    expect(usPhoneDigits('123456789012345')).toHaveLength(10);
  });

  it('gives an empty string for no digits (the widget turns it into undefined)', () => {
    expect(usPhoneDigits('+')).toBe('');
    expect(emptyToUndefined(usPhoneDigits(''))).toBeUndefined();
  });
});

describe('onlyDigits (the code and digits-only password widgets)', () => {
  it('keeps the digits of a pasted "Your code is 1234"', () => {
    expect(onlyDigits('Your code is 1234', 4)).toBe('1234');
  });

  it('keeps the first digits up to the length', () => {
    expect(onlyDigits('123456', 4)).toBe('1234');
    expect(onlyDigits('123-45-6789', 9)).toBe('123456789');
  });

  it('has no limit without a length', () => {
    expect(onlyDigits('1 2 3 4 5 6 7 8 9 0 1')).toBe('12345678901');
  });
});

describe('caretAfterCleaning', () => {
  it('puts the caret after the digits that stood before it', () => {
    // "201-|555" → "201|555"
    expect(caretAfterCleaning('201-555', 4, '201555')).toBe(3);
    // "20x|1" → "20|1"
    expect(caretAfterCleaning('20x1', 3, '201')).toBe(2);
  });

  it('stays within the cleaned text', () => {
    expect(caretAfterCleaning('12345', 5, '1234')).toBe(4);
  });
});

describe('emptyToUndefined', () => {
  it('turns an empty string into undefined and keeps anything else', () => {
    expect(emptyToUndefined('')).toBeUndefined();
    expect(emptyToUndefined(' ')).toBe(' ');
    expect(emptyToUndefined('0')).toBe('0');
  });
});
