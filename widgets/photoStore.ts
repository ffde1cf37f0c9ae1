/**
 * The bytes of the photos chosen in the photo slots, keyed by field name. The form data holds
 * only each photo's content type ("image/jpeg"), so validation stays cheap and no base64 ever
 * sits in the form state; the step page sends each new photo ahead of its step from here (and
 * keeps the id it gets), and clears the photos once the step was sent.
 *
 * Plain module state: one photo per field name for the whole page.
 */
import { KEPT_FILE_PREFIX } from '../src/shared/review';

const photos = new Map<string, Blob>();
/** Photos the server has already: sent before (a prefilled step) or ahead of this step; their upload ids, by field. */
const keptUploads = new Map<string, string>();
const urls = new Map<string, string>();
/** While a step's photos are on their way: the share (0 to 1) of each new photo sent so far, by field. */
const sending = new Map<string, number>();
const listeners = new Set<() => void>();
let version = 0;

function changed(): void {
  version += 1;
  for (const listener of listeners) listener();
}

function revokeUrl(field: string): void {
  const url = urls.get(field);
  if (url === undefined) return;
  urls.delete(field);
  URL.revokeObjectURL(url);
}

/** Stores the photo for `field`, replacing (and releasing) any earlier one. */
export function setPhoto(field: string, blob: Blob): void {
  revokeUrl(field);
  keptUploads.delete(field);
  photos.set(field, blob);
  changed();
}

/** Shows a photo the driver sent before; unless replaced, the form sends it back as kept, not again. */
export function keepPhoto(field: string, blob: Blob, uploadId: string): void {
  setPhoto(field, blob);
  keptUploads.set(field, uploadId);
}

/** The photo in `field` arrived ahead of its step as upload `uploadId`: the step sends it as kept, not again. */
export function keepSentPhoto(field: string, uploadId: string): void {
  if (!photos.has(field)) return;
  keptUploads.set(field, uploadId);
  changed();
}

/** What a payload carries for a photo field: a new photo's bytes, or `kept:<id>` for one sent before and not replaced. */
export function photoPayload(field: string): Blob | string | undefined {
  const kept = keptUploads.get(field);
  return kept === undefined ? photos.get(field) : `${KEPT_FILE_PREFIX}${kept}`;
}

/** Whether the photo in `field` is the one sent before. */
export const isKeptPhoto = (field: string): boolean => keptUploads.has(field);

export function getPhoto(field: string): Blob | undefined {
  return photos.get(field);
}

export function clearPhoto(field: string): void {
  if (!photos.has(field) && !urls.has(field)) return;
  revokeUrl(field);
  keptUploads.delete(field);
  photos.delete(field);
  changed();
}

/** An object URL of the stored photo, created once per stored blob and revoked when it is replaced or cleared. */
export function photoUrl(field: string): string | undefined {
  const blob = photos.get(field);
  if (!blob) return undefined;
  let url = urls.get(field);
  if (url === undefined) {
    url = URL.createObjectURL(blob);
    urls.set(field, url);
  }
  return url;
}

export function clearAllPhotos(): void {
  if (photos.size === 0 && urls.size === 0) return;
  for (const field of [...urls.keys()]) revokeUrl(field);
  photos.clear();
  keptUploads.clear();
  changed();
}

/** How much of the photo in `field` has been sent (0 to 1), while the step's upload is on its way. */
export const sentShareOf = (field: string): number | undefined => sending.get(field);

/** The upload's progress, by field; undefined once it ended (sent or not). */
export function setSentShares(shares: Record<string, number> | undefined): void {
  sending.clear();
  for (const [field, share] of Object.entries(shares ?? {})) sending.set(field, share);
  changed();
}

/** For `useSyncExternalStore` in the photo slot: re-render when any photo, or the upload's progress, changes. */
export function subscribePhotos(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export function photosVersion(): number {
  return version;
}
