import { describe, expect, it } from 'vitest';
import { createFormValues } from '../../widgets/formValues.js';

describe('createFormValues', () => {
  it('gives a field’s current value and tells subscribers when the values change', () => {
    const values = createFormValues({ state: 'CA' });
    const seen: unknown[] = [];
    const unsubscribe = values.subscribe(() => seen.push(values.get('state')));
    values.set({ state: 'TX', city: 'Austin' });
    expect(values.get('state')).toBe('TX');
    expect(values.get('city')).toBe('Austin');
    unsubscribe();
    values.set({ state: 'NY' });
    expect(seen).toEqual(['TX']);
  });
});
