import { describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/node/projectFiles.js';
import { parseFixture, relativeDate } from '../../src/shared/fixtureFiles.js';

const now = new Date(2026, 7, 31); // 31 August 2026

describe('a fixture date relative to the day it runs', () => {
  it.each([
    ['$today', '2026-08-31'],
    ['$today-18y', '2008-08-31'],
    ['$today-18y+1d', '2008-09-01'],
    ['$today+6m', '2027-03-03'], // 31 February is 3 March, as the validators' own arithmetic has it
    ['$today+6m-1d', '2027-03-02'],
  ])('%s is %s', (text, date) => {
    expect(relativeDate(text, now)).toBe(date);
  });

  it('is no date when written otherwise', () => {
    expect(relativeDate('$today-18', now)).toBeUndefined();
    expect(relativeDate('2026-08-31', now)).toBeUndefined();
  });

  it('is resolved in a fixture’s values, and a mistyped one is named at its place', () => {
    const flow = loadFlow();
    const fixture = parseFixture({ step: 'completeProfile', expect: 'valid', data: { dateOfBirth: '$today-18y' } }, flow, now);
    expect(fixture.data.dateOfBirth).toBe('2008-08-31');
    expect(() => parseFixture({ step: 'completeProfile', expect: 'valid', data: { dateOfBirth: '$today-18years' } }, flow, now)).toThrow(AggregateError);
    try {
      parseFixture({ step: 'completeProfile', expect: 'valid', data: { dateOfBirth: '$today-18years' } }, flow, now);
    } catch (error) {
      expect((error as AggregateError).errors.map((e: Error & { place: string }) => `${e.place}: ${e.message}`)).toEqual([
        'data/dateOfBirth: "$today-18years" is no date relative to today — write e.g. "$today-18y" or "$today+6m-1d" (y, m, d)',
      ]);
    }
  });
});
