/**
 * Writes the static US place lists that the state and city selects fetch (widgets/placesData.ts):
 *
 *   <outDir>/us-states.json      [{"code":"AL","name":"Alabama"}, …]   the 50 states and DC, by name
 *   <outDir>/cities/<CODE>.json  ["Abbeville", …]                      one state's cities, sorted
 *
 * The data comes from the npm package country-state-city. Run at build time:
 * `await writeUsPlaces('dist/data')`. Loading the package parses ~8 MB of JSON (a few hundred
 * ms), so the files are rewritten only when the package version or this module changed: a stamp
 * file (a dotfile, which static servers do not serve) records both.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMissingFile } from './fileErrors.js';

/**
 * The 50 states and DC by USPS code. The package's US list also holds the territories (AS, GU,
 * MP, PR, VI) and the Minor Outlying Islands (UM, UM-81, …); "2-letter code with cities" would
 * still let Puerto Rico in, so the list is spelled out.
 */
export const US_STATE_CODES: readonly string[] = Object.freeze([
  'AL',
  'AK',
  'AZ',
  'AR',
  'CA',
  'CO',
  'CT',
  'DE',
  'DC',
  'FL',
  'GA',
  'HI',
  'ID',
  'IL',
  'IN',
  'IA',
  'KS',
  'KY',
  'LA',
  'ME',
  'MD',
  'MA',
  'MI',
  'MN',
  'MS',
  'MO',
  'MT',
  'NE',
  'NV',
  'NH',
  'NJ',
  'NM',
  'NY',
  'NC',
  'ND',
  'OH',
  'OK',
  'OR',
  'PA',
  'RI',
  'SC',
  'SD',
  'TN',
  'TX',
  'UT',
  'VT',
  'VA',
  'WA',
  'WV',
  'WI',
  'WY',
]);

/**
 * About 15 % of the package's "cities" are counties and county equivalents ("Alameda County",
 * "Acadia Parish", "Bethel Census Area", "Denali Borough"), which are not what a driver picks as
 * a city. A consolidated "City and Borough" (Sitka, Yakutat) is a city and stays, as do the
 * Virginia independent cities ("City of Alexandria").
 */
const NOT_A_CITY = /\s(County|Parish|Census Area|(?<!City and )Borough)$/;

const STAMP_FILE = '.us-places.stamp';

const require = createRequire(import.meta.url);
const collator = new Intl.Collator('en-US', { sensitivity: 'base', numeric: true });

/** A file's text; undefined when it is not there (not written yet). */
async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
}

/** What the output depends on: the package version and this module's own text. */
async function currentStamp(): Promise<string> {
  const pkg = JSON.parse(await readFile(require.resolve('country-state-city/package.json'), 'utf8')) as { name: string; version: string };
  const script = await readFile(fileURLToPath(import.meta.url));
  const scriptHash = createHash('sha256').update(script).digest('hex').slice(0, 16);
  return JSON.stringify({ package: `${pkg.name}@${pkg.version}`, script: scriptHash });
}

/** The existing output is complete and was written from the same inputs. */
async function upToDate(outDir: string, stamp: string): Promise<boolean> {
  if ((await readText(path.join(outDir, STAMP_FILE))) !== stamp) return false;
  const statesText = await readText(path.join(outDir, 'us-states.json'));
  if (statesText === undefined) return false;
  try {
    const states: unknown = JSON.parse(statesText);
    const files = new Set(await readdir(path.join(outDir, 'cities')));
    return Array.isArray(states) && states.length > 0 && states.every((state) => files.has(`${state.code}.json`));
  } catch (error) {
    // Half-written output (a list cut short, no cities folder) is written again.
    if (error instanceof SyntaxError || isMissingFile(error)) return false;
    throw error;
  }
}

/** De-duplicated, trimmed, counties dropped, sorted as a person would look for them. */
export function cleanCityNames(names: string[]): string[] {
  const unique = new Set<string>();
  for (const name of names) {
    const trimmed = name.replace(/\s+/g, ' ').trim();
    if (trimmed !== '' && !NOT_A_CITY.test(trimmed)) unique.add(trimmed);
  }
  return [...unique].sort((a, b) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Writes `us-states.json` and `cities/<CODE>.json` into `outDir` (created if needed) unless they
 * are already up to date. Returns whether it wrote and how many states there are.
 */
export async function writeUsPlaces(outDir: string): Promise<{ written: boolean; states: number }> {
  const stamp = await currentStamp();
  if (await upToDate(outDir, stamp)) return { written: false, states: US_STATE_CODES.length };

  // Loaded only when writing: importing it parses the whole world's cities.
  const { State, City } = await import('country-state-city');
  const byCode = new Map(State.getStatesOfCountry('US').map((state) => [state.isoCode, state]));

  const states: { code: string; name: string }[] = [];
  const cityLists = new Map<string, string[]>();
  for (const code of US_STATE_CODES) {
    const state = byCode.get(code);
    const cities = cleanCityNames(City.getCitiesOfState('US', code).map((city) => city.name));
    // Fail the build loudly rather than ship a state nobody can pick a city in.
    if (!state) throw new Error(`country-state-city has no US state ${code}`);
    if (cities.length === 0) throw new Error(`country-state-city has no cities for ${code}`);
    states.push({ code, name: state.name });
    cityLists.set(code, cities);
  }
  states.sort((a, b) => collator.compare(a.name, b.name));

  const citiesDir = path.join(outDir, 'cities');
  // Start clean, so a state dropped by an earlier version of this script leaves no file behind.
  await rm(citiesDir, { recursive: true, force: true });
  await rm(path.join(outDir, STAMP_FILE), { force: true });
  await mkdir(citiesDir, { recursive: true });
  await Promise.all([...cityLists].map(([code, cities]) => writeFile(path.join(citiesDir, `${code}.json`), JSON.stringify(cities))));
  await writeFile(path.join(outDir, 'us-states.json'), JSON.stringify(states));
  // Last: an interrupted run leaves no stamp, so the next one writes everything again.
  await writeFile(path.join(outDir, STAMP_FILE), stamp);
  return { written: true, states: states.length };
}
