import { describe, expect, it } from 'vitest';
import { createAjv } from '../../src/shared/ajv.js';
import { dateLimits, isoDateOffset } from '../../src/shared/dates.js';
import { fromAjvErrors, messagesByField } from '../../src/shared/errors.js';
import { loadSchema } from '../../src/node/projectFiles.js';

const ajv = createAjv();
const messagesFor = (schemaName: string, data: Record<string, unknown>) => {
  const validate = ajv.compile(loadSchema(schemaName));
  validate(data);
  return messagesByField(fromAjvErrors(validate.errors ?? []));
};

describe('isoDateOffset', () => {
  it('counts years and months in the local calendar', () => {
    const now = new Date(2026, 10, 22);
    expect(isoDateOffset(-18, 0, now)).toBe('2008-11-22');
    expect(isoDateOffset(0, 6, now)).toBe('2027-05-22');
  });
});

describe('dateLimits', () => {
  it('gives the date of birth picker a latest date 18 years ago and the expiry pickers an earliest date 6 months ahead', () => {
    const now = new Date(2026, 10, 22);
    expect(dateLimits({ minAgeYears: 18 }, now)).toEqual({ max: '2008-11-22' });
    expect(dateLimits({ minMonthsAhead: 6 }, now)).toEqual({ min: '2027-05-22' });
  });
});

describe('minAgeYears (date of birth)', () => {
  const dob = (date: string) => messagesFor('profile', { dateOfBirth: date }).dateOfBirth;
  it('accepts the picker’s latest date, exactly 18 years ago', () => {
    expect(dob(isoDateOffset(-18, 0))).toBeUndefined();
  });
  it('rejects a day later with "You must be at least 18 years old to access the app."', () => {
    const dayLater = isoDateOffset(-18, 0, new Date(Date.now() + 24 * 60 * 60 * 1000));
    expect(dob(dayLater)).toEqual(['You must be at least 18 years old to access the app.']);
  });
});

describe('minMonthsAhead (expiry dates)', () => {
  const expiry = (date: string) => messagesFor('vehicle', { driverLicenseExpiryDate: date }).driverLicenseExpiryDate;
  it('accepts the picker’s earliest date, exactly 6 months ahead', () => {
    expect(expiry(isoDateOffset(0, 6))).toBeUndefined();
  });
  it('rejects a day earlier with "You can only select a date that is 6 months ahead."', () => {
    const dayEarlier = isoDateOffset(0, 6, new Date(Date.now() - 24 * 60 * 60 * 1000));
    expect(expiry(dayEarlier)).toEqual(['You can only select a date that is 6 months ahead.']);
  });
});

describe('yearWithin (vehicle year)', () => {
  const year = new Date().getFullYear();
  const message = `Year must be between ${year - 100} and ${year + 1}`;
  const modelYear = (value: string) => messagesFor('vehicle', { modelYear: value }).modelYear;
  it(`rejects ${year - 101} with "${message}"`, () => expect(modelYear(String(year - 101))).toEqual([message]));
  it(`rejects ${year + 2} with "${message}"`, () => expect(modelYear(String(year + 2))).toEqual([message]));
  it(`accepts ${year - 100} and ${year + 1}`, () => {
    expect(modelYear(String(year - 100))).toBeUndefined();
    expect(modelYear(String(year + 1))).toBeUndefined();
  });
  it('leaves a value that is not 4 digits to the format message', () => {
    expect(modelYear('123')).toEqual(['Please enter a valid year in YYYY format']);
  });
});

describe('abaRouting (bank routing number)', () => {
  const routing = (value: string) => messagesFor('bank', { routingNumber: value }).routingNumber;
  it.each(['111000025', '021000021', '110000000'])('accepts %s, whose ABA checksum holds', (value) => expect(routing(value)).toBeUndefined());
  it.each(['111000026', '021000022', '12345'])('rejects %s with "Routing number is not valid."', (value) =>
    expect(routing(value)).toEqual(['Routing number is not valid.']),
  );
  it('leaves letters and an overlong number to their own messages', () => {
    expect(routing('11100002a')).toEqual(['Routing number must be a numeric value.']);
    expect(routing('1110000250')).toEqual(['Routing Number must be maximum 9 characters long.']);
  });
});
