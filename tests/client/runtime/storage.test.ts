// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  applyStore,
  clearDriverStorage,
  clearStaffToken,
  clearTarget,
  getItem,
  getStaffToken,
  getTokenCookie,
  holdsDriverToken,
  noteDraftCookie,
  setItem,
  setStaffToken,
  storageSnapshot,
  writeTarget,
} from '../../../src/client/runtime/storage.js';

const cookies = () => document.cookie.split('; ').filter(Boolean);
const expireCookie = (name: string) => {
  document.cookie = `${name}=; Path=/; Max-Age=0`;
};

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  for (const name of ['token', 'drafts']) expireCookie(name);
});
afterEach(() => vi.restoreAllMocks());

describe('the browser storage (runtime/storage.ts)', () => {
  it('keeps what a step’s store map names: the spec’s keys and the token cookie, nothing else', () => {
    const values: Record<string, unknown> = { 'response.token': 'session-token', 'response.driverId': 'driver-1', 'payload.email': 'ana@example.com' };
    applyStore(
      {
        'storage.token': 'response.token',
        'cookie.token': 'response.token',
        'storage.driver_id': 'response.driverId',
        'storage.email': 'payload.email',
        'storage.notAKey': 'payload.email',
      },
      (source) => values[source],
    );
    expect(storageSnapshot()).toEqual({ token: 'session-token', driver_id: 'driver-1', email: 'ana@example.com' });
    expect(getTokenCookie()).toBe('session-token');
    expect(localStorage.getItem('notAKey')).toBeNull();
  });

  it('stores nothing for a value that is missing, and a number as its text', () => {
    writeTarget('storage.vehicle_id', undefined);
    writeTarget('storage.phone', null);
    writeTarget('cookie.token', '');
    expect(storageSnapshot()).toEqual({});
    expect(getTokenCookie()).toBeUndefined();
    writeTarget('storage.vehicle_id', 42);
    expect(getItem('vehicle_id')).toBe('42');
  });

  it('clears one target, and every driver key and the token cookie on signing out', () => {
    setItem('email', 'ana@example.com');
    setItem('isSocial', 'yes');
    writeTarget('cookie.token', 'session-token');
    expect(holdsDriverToken()).toBe(true);
    clearTarget('storage.isSocial');
    expect(storageSnapshot()).toEqual({ email: 'ana@example.com' });
    clearDriverStorage();
    expect(storageSnapshot()).toEqual({});
    expect(getTokenCookie()).toBeUndefined();
    expect(holdsDriverToken()).toBe(false);
  });

  it('names the steps with a draft in the drafts cookie, each once, and forgets the cookie with the last', () => {
    noteDraftCookie('completeProfile', true);
    noteDraftCookie('addVehicle', true);
    noteDraftCookie('addVehicle', true);
    expect(cookies()).toContain('drafts=completeProfile.addVehicle');
    noteDraftCookie('completeProfile', false);
    expect(cookies()).toContain('drafts=addVehicle');
    noteDraftCookie('addVehicle', false);
    // Expired, with no step in it.
    expect(cookies().filter((cookie) => cookie.startsWith('drafts=') && cookie !== 'drafts=')).toEqual([]);
  });

  it('keeps the staff session in this tab’s storage, apart from the driver’s token', () => {
    setStaffToken('staff-token');
    expect(getStaffToken()).toBe('staff-token');
    expect(getItem('token')).toBeUndefined();
    clearStaffToken();
    expect(getStaffToken()).toBeUndefined();
  });

  it('never throws when the browser refuses storage (a web view with storage disabled, private mode): the page goes on without it', () => {
    const refused = () => {
      throw new DOMException('Access is denied for this document.', 'SecurityError');
    };
    vi.spyOn(window, 'localStorage', 'get').mockImplementation(refused);
    vi.spyOn(window, 'sessionStorage', 'get').mockImplementation(refused);
    expect(() => setItem('email', 'ana@example.com')).not.toThrow();
    expect(getItem('email')).toBeUndefined();
    expect(storageSnapshot()).toEqual({});
    expect(() => clearDriverStorage()).not.toThrow();
    expect(() => setStaffToken('staff-token')).not.toThrow();
    expect(getStaffToken()).toBeUndefined();
  });
});
