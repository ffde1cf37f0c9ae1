import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanCityNames, writeUsPlaces } from '../../src/node/usPlaces.js';

interface StateEntry {
  code: string;
  name: string;
}

const TERRITORIES = ['AS', 'GU', 'MP', 'PR', 'VI', 'UM'];

describe('writeUsPlaces', () => {
  let outDir: string;
  let states: StateEntry[];

  const readJson = async <T>(...parts: string[]): Promise<T> => JSON.parse(await readFile(path.join(outDir, ...parts), 'utf8')) as T;

  beforeAll(async () => {
    outDir = await mkdtemp(path.join(tmpdir(), 'us-places-'));
    await expect(writeUsPlaces(outDir)).resolves.toEqual({ written: true, states: 51 });
    states = await readJson<StateEntry[]>('us-states.json');
  });

  afterAll(async () => {
    await rm(outDir, { recursive: true, force: true });
  });

  it('lists the 50 states and DC as { code, name }, sorted by name', () => {
    expect(states).toHaveLength(51);
    for (const state of states) {
      expect(Object.keys(state).sort()).toEqual(['code', 'name']);
      expect(state.code).toMatch(/^[A-Z]{2}$/);
    }
    expect(states).toContainEqual({ code: 'CA', name: 'California' });
    expect(states).toContainEqual({ code: 'DC', name: 'District of Columbia' });
    const names = states.map((state) => state.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en-US')));
  });

  it('leaves out the territories and the Minor Outlying Islands', () => {
    const codes = states.map((state) => state.code);
    for (const territory of TERRITORIES) expect(codes).not.toContain(territory);
    expect(states.some((state) => /Outlying|Puerto Rico|Guam|Samoa|Virgin Islands|Mariana/.test(state.name))).toBe(false);
  });

  it('writes one city file per state and no other', async () => {
    const files = (await readdir(path.join(outDir, 'cities'))).sort();
    expect(files).toEqual(states.map((state) => `${state.code}.json`).sort());
  });

  it('lists "Los Angeles" among the cities of CA', async () => {
    const cities = await readJson<string[]>('cities', 'CA.json');
    expect(cities).toContain('Los Angeles');
    expect(cities).toContain('San Francisco');
  });

  it('writes each state’s cities as compact JSON, unique, sorted, without counties', async () => {
    for (const { code } of states) {
      const raw = await readFile(path.join(outDir, 'cities', `${code}.json`), 'utf8');
      const cities = JSON.parse(raw) as unknown;
      expect(Array.isArray(cities), code).toBe(true);
      const list = cities as string[];
      expect(raw).toBe(JSON.stringify(list));
      expect(list.length, code).toBeGreaterThan(0);
      expect(new Set(list).size, code).toBe(list.length);
      expect(list, code).toEqual(cleanCityNames(list));
      expect(
        list.filter((city) => / County$| Parish$/.test(city)),
        code,
      ).toEqual([]);
    }
  });

  it('keeps a consolidated city and borough such as Sitka', async () => {
    const cities = await readJson<string[]>('cities', 'AK.json');
    expect(cities).toContain('Sitka City and Borough');
    expect(cities).not.toContain('Denali Borough');
  });

  it('does not rewrite up-to-date files', async () => {
    const file = path.join(outDir, 'cities', 'CA.json');
    const before = (await stat(file)).mtimeMs;
    await expect(writeUsPlaces(outDir)).resolves.toEqual({ written: false, states: 51 });
    expect((await stat(file)).mtimeMs).toBe(before);
  });

  it('rewrites when the stamp does not match (another package version)', async () => {
    await writeFile(path.join(outDir, '.us-places.stamp'), '{"package":"country-state-city@0.0.0"}');
    await expect(writeUsPlaces(outDir)).resolves.toEqual({ written: true, states: 51 });
  });

  it('rewrites when a city file went missing', async () => {
    await rm(path.join(outDir, 'cities', 'TX.json'));
    await expect(writeUsPlaces(outDir)).resolves.toEqual({ written: true, states: 51 });
    expect(await readJson<string[]>('cities', 'TX.json')).toContain('Houston');
  });
});

describe('cleanCityNames', () => {
  it('trims, drops duplicates and counties, and sorts', () => {
    expect(cleanCityNames([' Oakland', 'Alameda County', 'Oakland', 'alameda', 'Acadia Parish', 'Yakutat City and Borough'])).toEqual([
      'alameda',
      'Oakland',
      'Yakutat City and Borough',
    ]);
  });
});
