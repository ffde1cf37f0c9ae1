import { useSyncExternalStore } from 'react';
import { createListeners } from './listeners';

/**
 * Which fields of a form the driver touched: a field is handed its errors once it was
 * (src/client/form/templates.tsx, ShownErrorsField). A store rather than a set in rjsf's
 * formContext, as the values are (formValues.ts): a formContext that changed as each field is
 * first touched would have rjsf draw every field of the form again (~100 ms for a key at the
 * bench's slow phone); with a store only the touched field draws again.
 */
export interface TouchedFields {
  has(id: string): boolean;
  subscribe(listener: () => void): () => void;
}

export interface TouchedFieldsStore extends TouchedFields {
  touch(id: string): void;
}

export function createTouchedFields(): TouchedFieldsStore {
  const touched = new Set<string>();
  const { subscribe, notify } = createListeners();
  return {
    has: (id) => touched.has(id),
    subscribe,
    touch(id) {
      if (touched.has(id)) return;
      touched.add(id);
      notify();
    },
  };
}

/** A form that shares no touched fields (the studio's preview) shows every field's errors at once. */
const ALL_TOUCHED: TouchedFields = { has: () => true, subscribe: () => () => undefined };

/** Whether the field was touched, drawing the caller again when it first is. */
export function useFieldTouched(touched: TouchedFields | undefined, id: string): boolean {
  const store = touched ?? ALL_TOUCHED;
  const read = () => store.has(id);
  return useSyncExternalStore(store.subscribe, read, read);
}
