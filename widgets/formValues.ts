import { useSyncExternalStore } from 'react';
import { createListeners } from './listeners';

/**
 * The form's current values, for a widget that depends on another field (the city on the state).
 * It is a store rather than a value in rjsf's formContext: a formContext that changed on every
 * key press would make rjsf re-render every field of the form on every key press; with a store
 * only the widgets that read a field re-render, and only when that field changes.
 */
export interface FormValues {
  get(field: string): unknown;
  subscribe(listener: () => void): () => void;
}

export interface FormValuesStore extends FormValues {
  /** Every field's value: the object rjsf last reported, itself. */
  all(): Record<string, unknown>;
  set(values: Record<string, unknown>): void;
}

export function createFormValues(initial: Record<string, unknown> = {}): FormValuesStore {
  let values = initial;
  const { subscribe, notify } = createListeners();
  return {
    get: (field) => values[field],
    all: () => values,
    subscribe,
    set(next) {
      values = next;
      notify();
    },
  };
}

const NO_VALUES: FormValues = { get: () => undefined, subscribe: () => () => undefined };

/** One field's current value, re-rendering the caller only when it changes. */
export function useFieldValue(values: FormValues | undefined, field: string): unknown {
  const store = values ?? NO_VALUES;
  // The same on the server (a step it draws): the store holds the values the form opens with.
  const value = () => store.get(field);
  return useSyncExternalStore(store.subscribe, value, value);
}

/** What `select` makes of all the values, re-rendering the caller only when that changes (compare it by value: a string). */
export function useValuesSelection<Selected extends string | number | boolean | undefined>(
  values: FormValuesStore,
  select: (all: Record<string, unknown>) => Selected,
): Selected {
  const selected = () => select(values.all());
  return useSyncExternalStore(values.subscribe, selected, selected);
}
