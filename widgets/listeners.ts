/**
 * The listeners of a store that components read with useSyncExternalStore (formValues.ts,
 * touchedFields.ts): `subscribe` as React takes it, `notify` once the store has changed.
 */
export function createListeners(): { subscribe(listener: () => void): () => void; notify(): void } {
  const listeners = new Set<() => void>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify() {
      for (const listener of listeners) listener();
    },
  };
}
