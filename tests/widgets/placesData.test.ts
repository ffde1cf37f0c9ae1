import { describe, expect, it } from 'vitest';
import { citiesOf, citiesPath, cityAfterStateChange, stateCodeOf, STATES_PATH, statesOf } from '../../widgets/placesData';

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

// How often each list is fetched, and Retry after a failure: tests/components/widgets.test.tsx.
describe('the place lists as read', () => {
  it('are read from /data/us-states.json and /data/cities/<code>.json', () => {
    expect(STATES_PATH).toBe('/data/us-states.json');
    expect(citiesPath('CA')).toBe('/data/cities/CA.json');
  });

  it('are taken as they are when they have the lists’ shape', () => {
    expect(statesOf([{ code: 'CA', name: 'California' }])).toEqual([{ code: 'CA', name: 'California' }]);
    expect(citiesOf(['Los Angeles'])).toEqual(['Los Angeles']);
  });

  it('are a failed read when a file is not a list of names', () => {
    expect(() => citiesOf({ cities: [] })).toThrow('not a list');
    expect(() => citiesOf([1, 2])).toThrow('not a list');
    expect(() => statesOf({ states: [] })).toThrow('not a list');
    expect(() => statesOf([{ code: 'CA' }])).toThrow('not a list');
  });
});
