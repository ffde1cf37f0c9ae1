import type { WidgetProps } from '@rjsf/utils';
import { describe, expect, it } from 'vitest';
import { dateRuleHint, datePickerLimits } from '../../widgets/dateRule';
import { describedBy, formContextOf, hasErrors } from '../../widgets/widgetProps';

const props = (extra: Partial<WidgetProps>): WidgetProps =>
  ({ id: 'root_city', rawErrors: [], registry: { formContext: {} }, ...extra }) as unknown as WidgetProps;

describe('dateRuleHint (the dateLimit widget’s hint)', () => {
  it('shows the schema’s own minAgeYears message', () => {
    const schema = {
      minAgeYears: 18,
      errorMessage: { format: 'Please enter your D.O.B', minAgeYears: 'You must be at least 18 years old to access the app.' },
    };
    expect(dateRuleHint(schema)).toBe('You must be at least 18 years old to access the app.');
  });

  it('shows the schema’s own minMonthsAhead message', () => {
    const schema = { minMonthsAhead: 6, errorMessage: { minMonthsAhead: 'You can only select a date that is 6 months ahead.' } };
    expect(dateRuleHint(schema)).toBe('You can only select a date that is 6 months ahead.');
  });

  it('shows nothing without a rule message', () => {
    expect(dateRuleHint({})).toBeUndefined();
    expect(dateRuleHint({ errorMessage: 'one message for all' })).toBeUndefined();
  });
});

describe('datePickerLimits', () => {
  const today = new Date(2026, 1, 15);

  it('makes 18 years ago the latest date of birth', () => {
    expect(datePickerLimits({ minAgeYears: 18 }, today)).toEqual({ max: '2008-02-15' });
  });

  it('makes 6 months from today the earliest expiry date', () => {
    expect(datePickerLimits({ minMonthsAhead: 6 }, today)).toEqual({ min: '2026-08-15' });
  });
});

describe('formContextOf', () => {
  it('reads rjsf 6’s registry.formContext', () => {
    expect(formContextOf(props({ registry: { formContext: { submitCount: 2 } } as never }))).toEqual({ submitCount: 2 });
  });

  it('prefers a formContext prop', () => {
    expect(formContextOf(props({ formContext: { submitCount: 1 } }))).toEqual({ submitCount: 1 });
  });

  it('gives an empty context when there is none', () => {
    expect(formContextOf(props({ registry: {} as never }))).toEqual({});
  });
});

describe('hasErrors (aria-invalid)', () => {
  it('is false without errors', () => {
    expect(hasErrors(props({}))).toBe(false);
  });

  it('follows the errors the field is handed (the step page hands them once they show: templates.tsx)', () => {
    expect(hasErrors(props({ rawErrors: ['Please enter your city.'] }))).toBe(true);
  });

  it('is true for a fix a reviewer asked for, from the start', () => {
    expect(hasErrors(props({ registry: { formContext: { fixes: new Map([['root_city', 'Please check your city.']]) } } as never }))).toBe(true);
  });

  it('is false when the field hides its errors', () => {
    expect(hasErrors(props({ rawErrors: ['x'], hideError: true }))).toBe(false);
  });
});

describe('describedBy', () => {
  it('points at the field’s error and help, then the widget’s own hints', () => {
    expect(describedBy('root_dateOfBirth')).toBe('root_dateOfBirth__error root_dateOfBirth__help');
    expect(describedBy('root_phoneNo', 'root_phoneNo__prefix', undefined)).toBe('root_phoneNo__error root_phoneNo__help root_phoneNo__prefix');
  });
});
