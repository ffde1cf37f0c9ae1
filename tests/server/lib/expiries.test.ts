import { describe, expect, it } from 'vitest';
import {
  dayIn,
  dayInWords,
  daysUntil,
  documentFields,
  expiredDocuments,
  noticeDue,
  renewableDocuments,
  type Expiries,
} from '../../../src/server/lib/expiries.js';

describe('documents that expire (lib/expiries.ts)', () => {
  const expiries: Expiries = {
    documents: [
      { step: 'addVehicle', date: 'proofInsuranceExpiryDate', files: ['proofInsurance'], name: 'proof of insurance' },
      { step: 'addVehicle', date: 'driverLicenseExpiryDate', files: ['driverLicenseCardFront', 'driverLicenseCardBack'], name: 'driver license' },
    ],
    daysBefore: [30, 7],
    whenExpired: 'askFix',
    fixReason: 'Expired on {expiresOn}.',
    renewReason: 'Expires on {expiresOn}.',
  };

  it('counts whole days to a date, and reads no date into an answer that is none', () => {
    expect(daysUntil('2031-04-19', '2031-03-10')).toBe(40);
    expect(daysUntil('2031-03-10', '2031-03-10')).toBe(0);
    expect(daysUntil('2031-03-09', '2031-03-10')).toBe(-1);
    // Across the change to summer time, still whole days.
    expect(daysUntil('2031-03-10', '2031-03-08')).toBe(2);
    for (const answer of ['2031-02-31', '31/03/2031', '', null, 20310310]) expect(daysUntil(answer, '2031-03-10')).toBeNull();
  });

  it('names the notice due on each day: the nearest day reached, those before it skipped, the expired one after the date', () => {
    expect(noticeDue(31, [30, 7])).toBeNull();
    expect(noticeDue(30, [30, 7])).toEqual({ notice: 'before-30', earlier: [] });
    expect(noticeDue(8, [30, 7])).toEqual({ notice: 'before-30', earlier: [] });
    expect(noticeDue(5, [30, 7])).toEqual({ notice: 'before-7', earlier: ['before-30'] });
    expect(noticeDue(0, [30, 7])).toEqual({ notice: 'before-7', earlier: ['before-30'] });
    expect(noticeDue(-1, [30, 7])).toEqual({ notice: 'expired', earlier: ['before-30', 'before-7'] });
    expect(noticeDue(3, [])).toBeNull();
  });

  it('lets a document be replaced from its first notice on, and tells the day in the driver’s time zone', () => {
    const answers = { proofInsuranceExpiryDate: '2031-04-09', driverLicenseExpiryDate: '2031-04-10' };
    expect(renewableDocuments(expiries, 'addVehicle', answers, '2031-03-10').map(documentFields)).toEqual([['proofInsuranceExpiryDate', 'proofInsurance']]);
    expect(renewableDocuments(expiries, 'completeProfile', answers, '2031-03-10')).toEqual([]);
    expect(expiredDocuments(expiries, new Map([['addVehicle', answers]]), '2031-04-10')).toEqual(['proof of insurance']);
    // 2 am UTC is still the day before in Los Angeles.
    expect(dayIn('America/Los_Angeles', new Date(Date.UTC(2031, 2, 10, 2)))).toBe('2031-03-09');
    expect(dayInWords('2031-04-09', 'es')).toBe('9 de abril de 2031');
  });
});
