import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cachedCities, cachedStates, cityAfterStateChange, loadCities, loadStates, resetPlacesCache, stateCodeOf } from '../../widgets/placesData';

describe('cityAfterStateChange (the usCity reset rule)', () => {
  const texas = ['Austin', 'Dallas', 'Houston'];

  it('keeps a city the new state has', () => {
    expect(cityAfterStateChange('Austin', texas)).toBe('Austin');
  });

  it('clears a city the new state does not have', () => {
    expect(cityAfterStateChange('Los Angeles', texas)).toBeUndefined();
  });

  it('clears the city when no state is chosen', () => {
    expect(cityAfterStateChange('Austin', undefined)).toBeUndefined();
  });

  it('keeps no city when there was none', () => {
    expect(cityAfterStateChange(undefined, texas)).toBeUndefined();
    expect(cityAfterStateChange('', texas)).toBeUndefined();
  });

  it('keeps a city spelled in another case, in the list’s spelling', () => {
    expect(cityAfterStateChange('houston ', texas)).toBe('Houston');
  });
});

describe('stateCodeOf', () => {
  it('accepts a 2-letter code only (it becomes part of a URL)', () => {
    expect(stateCodeOf('CA')).toBe('CA');
    expect(stateCodeOf('ca')).toBeUndefined();
    expect(stateCodeOf('../CA')).toBeUndefined();
    expect(stateCodeOf(undefined)).toBeUndefined();
    expect(stateCodeOf(42)).toBeUndefined();
  });
});

describe('loading the place lists', () => {
  const fetchMock = vi.fn<(url: string) => Promise<Response>>();
  const json = (body: unknown, status = 200) => Promise.resolve(new Response(JSON.stringify(body), { status }));

  beforeEach(() => {
    resetPlacesCache();
    fetchMock.mockReset();
    vi.stubGlobal('fetch', fetchMock);
  });

  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('fetches the states from /data/us-states.json once', async () => {
    fetchMock.mockImplementation(() => json([{ code: 'CA', name: 'California' }]));
    expect(cachedStates()).toBeUndefined();
    const [first, second] = await Promise.all([loadStates(), loadStates()]);
    expect(first).toEqual([{ code: 'CA', name: 'California' }]);
    expect(second).toBe(first);
    await loadStates();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/data/us-states.json');
    expect(cachedStates()).toBe(first);
  });

  it('fetches a state’s cities from /data/cities/<code>.json only when asked, once per state', async () => {
    fetchMock.mockImplementation((url) => json(url.endsWith('/CA.json') ? ['Los Angeles'] : ['Austin']));
    expect(fetchMock).not.toHaveBeenCalled();
    expect(await loadCities('CA')).toEqual(['Los Angeles']);
    expect(await loadCities('TX')).toEqual(['Austin']);
    expect(await loadCities('CA')).toEqual(['Los Angeles']);
    expect(fetchMock.mock.calls.map((call) => call[0])).toEqual(['/data/cities/CA.json', '/data/cities/TX.json']);
    expect(cachedCities('CA')).toEqual(['Los Angeles']);
    expect(cachedCities('NY')).toBeUndefined();
  });

  it('fetches again on retry after a failed load', async () => {
    fetchMock.mockImplementationOnce(() => json({ message: 'down' }, 503));
    await expect(loadCities('CA')).rejects.toThrow('503');
    expect(cachedCities('CA')).toBeUndefined();
    fetchMock.mockImplementationOnce(() => json(['Los Angeles']));
    await expect(loadCities('CA')).resolves.toEqual(['Los Angeles']);
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('rejects a file that is not a list of names', async () => {
    fetchMock.mockImplementation(() => json({ cities: [] }));
    await expect(loadCities('CA')).rejects.toThrow('not a list');
    await expect(loadStates()).rejects.toThrow('not a list');
  });

  it('fetches nothing for something that is not a state code', async () => {
    await expect(loadCities('../secrets')).rejects.toThrow();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
