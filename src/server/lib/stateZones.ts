/**
 * The time zone of each US state, DC and territory by its two-letter code (what the profile's
 * `state` holds): the zone most of its people live in, for a state split between two. Reminders
 * are held during the night there (plugins/reminders.ts).
 */
const ZONES: Readonly<Record<string, readonly string[]>> = {
  'America/New_York': ['CT', 'DC', 'DE', 'FL', 'GA', 'MA', 'MD', 'ME', 'NC', 'NH', 'NJ', 'NY', 'OH', 'PA', 'RI', 'SC', 'VA', 'VT', 'WV'],
  'America/Detroit': ['MI'],
  'America/Indiana/Indianapolis': ['IN'],
  'America/Kentucky/Louisville': ['KY'],
  'America/Chicago': ['AL', 'AR', 'IA', 'IL', 'KS', 'LA', 'MN', 'MO', 'MS', 'ND', 'NE', 'OK', 'SD', 'TN', 'TX', 'WI'],
  'America/Denver': ['CO', 'MT', 'NM', 'UT', 'WY'],
  'America/Boise': ['ID'],
  'America/Phoenix': ['AZ'],
  'America/Los_Angeles': ['CA', 'NV', 'OR', 'WA'],
  'America/Anchorage': ['AK'],
  'Pacific/Honolulu': ['HI'],
  'America/Puerto_Rico': ['PR', 'VI'],
  'Pacific/Guam': ['GU', 'MP'],
  'Pacific/Pago_Pago': ['AS'],
};

/** Before a driver has given their state: the zone most drivers' nights fall in first. */
export const DEFAULT_ZONE = 'America/New_York';

const ZONE_OF_STATE = new Map(Object.entries(ZONES).flatMap(([zone, states]) => states.map((state) => [state, zone] as const)));

export const zoneOfState = (state: string | null): string => (state && ZONE_OF_STATE.get(state.toUpperCase())) || DEFAULT_ZONE;
