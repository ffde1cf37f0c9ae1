/**
 * Rules for the payload values that are not a form's (they come from the client's storage or
 * context, so no step schema covers them). Messages reuse the spec's words where it has them.
 */
import { isIP } from 'node:net';
import { badRequest } from '../errors.js';

const isBlank = (value: unknown) => value === undefined || value === null || value === '';

/** An email from storage: trimmed and lower-cased, as the sign-up sent it. */
export function emailExtra(value: unknown): string {
  if (isBlank(value)) throw badRequest('Please enter your email');
  if (typeof value !== 'string') throw badRequest('Email must be valid.');
  const email = value.trim().toLowerCase();
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw badRequest('Email must be valid.');
  return email;
}

/** A phone from storage: "+1" and 10 digits, area code and exchange starting 2-9. */
export function usPhoneExtra(value: unknown): string {
  if (isBlank(value)) throw badRequest('Please enter your phone number');
  if (typeof value !== 'string' || !/^\+1[2-9][0-9]{2}[2-9][0-9]{6}$/.test(value)) throw badRequest('Phone number must be valid.');
  return value;
}

/** The Firebase ID token: a JWT, a few kilobytes at most. */
export function idTokenExtra(value: unknown): string {
  if (isBlank(value)) throw badRequest('The sign-in token (idToken) is missing. Please sign in again.');
  if (typeof value !== 'string' || value.length > 8192) throw badRequest('The sign-in token (idToken) is not valid. Please sign in again.');
  return value;
}

/** The public IP the client looked up: recorded only, so it may be missing. */
export function ipExtra(value: unknown): string | null {
  if (isBlank(value)) return null;
  if (typeof value !== 'string' || isIP(value) === 0) throw badRequest('ip must be an IP address.');
  return value;
}

export const VEHICLE_ID_MISSING = 'Vehicle Id not found. Please re-signup.';

/** The vehicle id stored after the photos step. */
export function vehicleIdExtra(value: unknown): string {
  if (isBlank(value)) throw badRequest(VEHICLE_ID_MISSING);
  if (typeof value !== 'string' || value.length > 64) throw badRequest('vehicleId must be text.');
  return value;
}

export const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
