/**
 * The US states and their cities, fetched as static files written at build time by
 * src/node/usPlaces.ts: `/data/us-states.json` (`[{ "code": "CA", "name": "California" }, …]`)
 * and `/data/cities/<CODE>.json` (`["Los Angeles", …]`, sorted). A state's cities are fetched
 * only when that state is chosen, so no city list weighs on the first page; each list is kept
 * for the rest of the visit.
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

async function fetchJson(url: string): Promise<unknown> {
  const response = await fetch(url, { headers: { Accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return response.json();
}

function isUsState(item: unknown): item is UsState {
  const candidate = item as Partial<UsState> | null;
  return typeof candidate?.code === 'string' && typeof candidate.name === 'string';
}

let states: UsState[] | undefined;
let statesInFlight: Promise<UsState[]> | undefined;

export function cachedStates(): UsState[] | undefined {
  return states;
}

export function loadStates(): Promise<UsState[]> {
  if (states) return Promise.resolve(states);
  statesInFlight ??= fetchJson(`${PLACES_BASE_URL}/us-states.json`)
    .then((data) => {
      if (!Array.isArray(data) || !data.every(isUsState)) throw new Error('us-states.json is not a list of states');
      states = data;
      return data;
    })
    .finally(() => {
      // A failed load is forgotten, so "Retry" fetches again.
      statesInFlight = undefined;
    });
  return statesInFlight;
}

const cities = new Map<string, string[]>();
const citiesInFlight = new Map<string, Promise<string[]>>();

export function cachedCities(stateCode: string): string[] | undefined {
  return cities.get(stateCode);
}

export function loadCities(stateCode: string): Promise<string[]> {
  const cached = cities.get(stateCode);
  if (cached) return Promise.resolve(cached);
  if (!STATE_CODE.test(stateCode)) return Promise.reject(new Error(`Not a state code: ${stateCode}`));
  let pending = citiesInFlight.get(stateCode);
  if (!pending) {
    pending = fetchJson(`${PLACES_BASE_URL}/cities/${stateCode}.json`)
      .then((data) => {
        if (!Array.isArray(data) || !data.every((city) => typeof city === 'string')) {
          throw new Error(`cities/${stateCode}.json is not a list of names`);
        }
        cities.set(stateCode, data);
        return data;
      })
      .finally(() => citiesInFlight.delete(stateCode));
    citiesInFlight.set(stateCode, pending);
  }
  return pending;
}

/** For tests: forget everything fetched. */
export function resetPlacesCache(): void {
  states = undefined;
  statesInFlight = undefined;
  cities.clear();
  citiesInFlight.clear();
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
