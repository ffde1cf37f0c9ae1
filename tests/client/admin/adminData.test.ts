import { describe, expect, it } from 'vitest';
import {
  answerText,
  driverName,
  formatDay,
  formatDuration,
  isExpired,
  isPastDate,
  localToday,
  providerLabel,
  REVIEW_TABS,
  submittedTime,
} from '../../../src/client/admin/adminData.js';
import { REVIEW_STATUSES, type QueueDriver, type ReviewedField } from '../../../src/shared/review.js';

const driver = (change: Partial<QueueDriver> = {}): QueueDriver => ({
  id: '3f1c2d4e-0000-4000-8000-00000000abcd',
  email: 'ada@example.com',
  phone: null,
  name: 'Ada Lovelace',
  provider: 'password',
  status: 'pending',
  rejectionReason: null,
  reviewVersion: 1,
  isSessionComplete: false,
  isSubscriptionPaid: false,
  createdAt: '2031-03-01T09:00:00.000Z',
  submittedAt: '2031-03-02T10:30:00.000Z',
  ...change,
});
const field = (name: string, value: ReviewedField['value']): ReviewedField => ({ field: name, title: name, kind: 'text', value, changed: false });

describe('the review page’s rules (admin/adminData.ts)', () => {
  it('has a tab for each review status, in the API’s order', () => {
    expect(REVIEW_TABS.map((tab) => tab.status)).toEqual([...REVIEW_STATUSES]);
    expect(REVIEW_TABS.map((tab) => tab.label)).toEqual(['Waiting', 'Approved', 'Rejected']);
  });

  it('calls a driver by their name, and by their email before the profile gives one', () => {
    expect(driverName(driver())).toBe('Ada Lovelace');
    expect(driverName(driver({ name: null }))).toBe('ada@example.com');
  });

  it('names the sign-in method, and shows an unknown one as it is', () => {
    expect(providerLabel('password')).toBe('Email and password');
    expect(providerLabel('google.com')).toBe('Google');
    expect(providerLabel('apple.com')).toBe('Apple');
    expect(providerLabel('facebook.com')).toBe('Facebook');
    expect(providerLabel('github.com')).toBe('github.com');
  });

  it('dates a driver by when they sent everything, and by their sign-up until then', () => {
    expect(submittedTime(driver())).toEqual({ label: 'Submitted', iso: '2031-03-02T10:30:00.000Z' });
    expect(submittedTime(driver({ submittedAt: null }))).toEqual({ label: 'Signed up', iso: '2031-03-01T09:00:00.000Z' });
  });

  it('reads an answer as a reviewer does: Yes/No, a calendar day, the text, "Not given" when empty', () => {
    expect(answerText(true)).toBe('Yes');
    expect(answerText(false)).toBe('No');
    expect(answerText('1990-03-04')).toBe('Mar 4, 1990');
    expect(answerText('Toyota')).toBe('Toyota');
    for (const empty of [null, undefined, '']) expect(answerText(empty)).toBe('Not given');
    expect(answerText(2020)).toBe('2020');
  });

  it('shows a day as the calendar day it names, whatever the time zone, and text that is no day as it is', () => {
    expect(formatDay('2031-12-31')).toBe('Dec 31, 2031');
    expect(formatDay('2031-01-01T23:30:00.000Z')).toBe('Jan 1, 2031');
    expect(formatDay('someday')).toBe('someday');
  });

  it('counts an expiry date as passed from the next day on, and only for an expiry field', () => {
    expect(isPastDate('2031-03-09', '2031-03-10')).toBe(true);
    expect(isPastDate('2031-03-10', '2031-03-10')).toBe(false);
    expect(isExpired(field('driverLicenseExpiryDate', '2031-03-09'), '2031-03-10')).toBe(true);
    expect(isExpired(field('driverLicenseExpiryDate', '2031-03-10'), '2031-03-10')).toBe(false);
    expect(isExpired(field('dateOfBirth', '1990-03-04'), '2031-03-10')).toBe(false);
    expect(isExpired(field('proofInsuranceExpiryDate', null), '2031-03-10')).toBe(false);
  });

  it('takes today in the reviewer’s own time zone, as YYYY-MM-DD', () => {
    expect(localToday(new Date(2031, 0, 5, 23, 59))).toBe('2031-01-05');
    expect(localToday(new Date(2031, 11, 31, 0, 0))).toBe('2031-12-31');
  });
});

describe('a time in the insights', () => {
  it('reads in minutes, hours or days, as fits', () => {
    expect([null, 0, 0.004, 0.25, 1 / 60, 0.999, 1, 3.5, 47.9, 48, 55.2].map(formatDuration)).toEqual([
      '—',
      'less than a minute',
      'less than a minute',
      '15 minutes',
      '1 minute',
      '1 hour',
      '1 hour',
      '3.5 hours',
      '47.9 hours',
      '2 days',
      '2.3 days',
    ]);
  });
});
