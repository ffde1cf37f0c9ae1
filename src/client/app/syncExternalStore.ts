/**
 * Stands in for use-sync-external-store's shim, which swr and wouter import to run on Reacts older
 * than 18: on a React that has its own useSyncExternalStore, the shim answers that one, as this does.
 */
export { useSyncExternalStore } from 'react';
