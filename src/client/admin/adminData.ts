/**
 * What the admin API answers (GET /admin/drivers) and the small pure rules the review page
 * applies to it: who a driver is called, what each uploaded document is called, which expiry
 * dates have passed. Kept apart from the components so they can be tested on their own.
 */

export type ReviewStatus = 'pending' | 'approved' | 'rejected';

/** Every value may be null: a driver's row exists before each form step is sent. */
export interface AdminProfile {
  firstName: string | null;
  lastName: string | null;
  MI: string | null;
  suffix: string | null;
  /** YYYY-MM-DD. */
  dateOfBirth: string | null;
  gender: string | null;
  /** "***-**-1234": only the last four digits ever leave the server; the full SSN is never sent. */
  ssnMasked: string | null;
  driverLicenseNumber: string | null;
  street: string | null;
  city: string | null;
  state: string | null;
  zipCode: string | null;
}

export interface AdminVehicle {
  id: string;
  make: string | null;
  model: string | null;
  year: number | null;
  plate: string | null;
  wheelchair: boolean;
  /** The three expiry dates as YYYY-MM-DD. */
  driverLicenseExpiry: string | null;
  registrationExpiry: string | null;
  insuranceExpiry: string | null;
  submittedAt: string | null;
}

export interface AdminDocument {
  id: string;
  /** The form field the image was uploaded as, e.g. "vehicleImageFront". */
  field: string;
  mime: string;
  size: number;
  url: string;
}

export interface AdminDriver {
  id: string;
  email: string;
  phone: string | null;
  /** The identity provider's sign-in method: "password", "google.com", "apple.com", "facebook.com". */
  provider: string | null;
  status: ReviewStatus;
  rejectionReason: string | null;
  /** What a decision must name: the version of the driver's data this answer shows. */
  reviewVersion: number;
  isSessionComplete: boolean;
  isSubscriptionPaid: boolean;
  createdAt: string;
  profile: AdminProfile | null;
  vehicle: AdminVehicle | null;
  bank: { accountHolderName: string; accountNumberMasked: string; routingNumber: string } | null;
  documents: AdminDocument[];
}

export const REVIEW_TABS: readonly { status: ReviewStatus; label: string; empty: string }[] = [
  { status: 'pending', label: 'Waiting', empty: 'No drivers are waiting for review.' },
  { status: 'approved', label: 'Approved', empty: 'No drivers have been approved yet.' },
  { status: 'rejected', label: 'Rejected', empty: 'No drivers have been rejected.' },
];

export const REJECTION_REASON_MAX = 500; // the admin API's limit

/**
 * The drivers of a list answer. The shape is the admin API's contract, so this only guards
 * against a body that is not a list at all (a proxy's error page, an older server).
 */
export function driversOf(data: Record<string, unknown>): AdminDriver[] | undefined {
  const drivers = data.drivers;
  return Array.isArray(drivers) ? (drivers as AdminDriver[]) : undefined;
}

/** "Ada B. Lovelace Jr." from the profile; the email while the driver has no profile yet. */
export function driverName(driver: AdminDriver): string {
  const profile = driver.profile;
  if (!profile) return driver.email;
  const middle = profile.MI ? `${profile.MI.replace(/\.$/, '')}.` : '';
  const name = [profile.firstName, middle, profile.lastName, profile.suffix ?? ''].filter(Boolean).join(' ');
  return name || driver.email;
}

const PROVIDER_LABELS: Readonly<Record<string, string>> = {
  password: 'Email and password',
  'google.com': 'Google',
  'apple.com': 'Apple',
  'facebook.com': 'Facebook',
};

export const providerLabel = (provider: string | null): string | null => (provider ? (PROVIDER_LABELS[provider] ?? provider) : null);

/** When the driver sent the last step for approval; sign-up time until then. */
export function submittedTime(driver: AdminDriver): { label: string; iso: string } {
  return driver.vehicle?.submittedAt
    ? { label: 'Submitted', iso: driver.vehicle.submittedAt }
    : { label: 'Signed up', iso: driver.createdAt };
}

/** Readable names of the uploaded fields, in the order a reviewer checks them (the spec's order). */
export const DOCUMENT_LABELS: Readonly<Record<string, string>> = {
  profilePicture: 'Profile photo',
  socialSecurityCardFront: 'SSN card front',
  socialSecurityCardBack: 'SSN card back',
  vehicleImageFront: 'Vehicle front',
  vehicleImageRear: 'Vehicle rear',
  vehicleImagePassengerSide: 'Vehicle passenger side',
  vehicleImageDriverSide: 'Vehicle driver side',
  vehicleImageInteriorFront: 'Vehicle interior front',
  vehicleImageInteriorBack: 'Vehicle interior back',
  driverLicenseCardFront: 'Driver license front',
  driverLicenseCardBack: 'Driver license back',
  proofInsurance: 'Proof of insurance',
  vehicleRegistrationCard: 'Vehicle registration card',
};

const EXPECTED_FIELDS = Object.keys(DOCUMENT_LABELS);

/** A field the table doesn't know yet still gets a readable name: "someNewField" → "Some new field". */
export function documentLabel(field: string): string {
  const known = DOCUMENT_LABELS[field];
  if (known) return known;
  const words = field.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The documents in the reviewer's order; unknown fields last, in the server's order. */
export function sortedDocuments(documents: readonly AdminDocument[]): AdminDocument[] {
  const rank = (field: string) => {
    const index = EXPECTED_FIELDS.indexOf(field);
    return index === -1 ? EXPECTED_FIELDS.length : index;
  };
  return [...documents].sort((a, b) => rank(a.field) - rank(b.field));
}

/** The expected uploads a driver has not sent (yet), by readable name. */
export function missingDocuments(documents: readonly AdminDocument[]): string[] {
  const present = new Set(documents.map((document) => document.field));
  return EXPECTED_FIELDS.filter((field) => !present.has(field)).map(documentLabel);
}

/** Today as YYYY-MM-DD in the reviewer's own time zone: an expiry date is a calendar day, not an instant. */
export function localToday(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** A YYYY-MM-DD date before today; ISO dates compare correctly as strings. A date expiring today is still valid. */
export function isPastDate(isoDate: string, today: string): boolean {
  return isoDate.slice(0, 10) < today;
}

const calendarDate = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' });
const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/** "Mar 4, 1990" for a YYYY-MM-DD day (read as UTC so it never shifts by a day); the raw text if it isn't one. */
export function formatDay(isoDate: string): string {
  const date = new Date(`${isoDate.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? isoDate : calendarDate.format(date);
}

/** "Mar 4, 2026, 2:05 PM" in the reviewer's time zone. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}
