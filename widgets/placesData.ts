/**
 * The US states and their cities, fetched as static files written at build time by
 * src/node/usPlaces.ts: `/data/us-states.json` (`[{ "code": "CA", "name": "California" }, …]`)
 * and `/data/cities/<CODE>.json` (`["Los Angeles", …]`, sorted). A state's cities are fetched
 * only when that state is chosen, so no city list weighs on the first page; each list is kept
 * for the rest of the visit (swr's cache, under the file's path: useRemoteList).
 */

export interface UsState {
  code: string;
  name: string;
}

export const PLACES_BASE_URL = '/data';

const STATE_CODE = /^[A-Z]{2}$/;

/** The 2-letter code if `value` looks like one (it comes from form data and ends up in a URL). */
export function stateCodeOf(value: unknown): string | undefined {
  return typeof value === 'string' && STATE_CODE.test(value) ? value : undefined;
}

/** swr's key of the state list: the file's path, read with the page's fetcher (useRemoteList). */
export const STATES_PATH = `${PLACES_BASE_URL}/us-states.json`;

/** swr's key of a state's cities (a code stateCodeOf let through): the file's path. */
export const citiesPath = (stateCode: string) => `${PLACES_BASE_URL}/cities/${stateCode}.json`;

function isUsState(item: unknown): item is UsState {
  const candidate = item as Partial<UsState> | null;
  return typeof candidate?.code === 'string' && typeof candidate.name === 'string';
}

/** The states of us-states.json as read; a file of another shape is a failed read. */
export function statesOf(data: unknown): UsState[] {
  if (!Array.isArray(data) || !data.every(isUsState)) throw new Error('us-states.json is not a list of states');
  return data;
}

/** The cities of a state's file as read; a file of another shape is a failed read. */
export function citiesOf(data: unknown): string[] {
  if (!Array.isArray(data) || !data.every((city) => typeof city === 'string')) throw new Error('The cities file is not a list of names');
  return data;
}

/**
 * The city to keep once the state changed and its list is known: the current city if the new
 * state has it (spelled as in the list, so a restored "los angeles" becomes "Los Angeles"),
 * otherwise none. Without a state (`cities` undefined) no city can stand.
 */
export function cityAfterStateChange(city: string | undefined, cityList: readonly string[] | undefined): string | undefined {
  if (!city || !cityList) return undefined;
  if (cityList.includes(city)) return city;
  const wanted = city.trim().toLocaleLowerCase('en-US');
  return cityList.find((name) => name.toLocaleLowerCase('en-US') === wanted);
}
