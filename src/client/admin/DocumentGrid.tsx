/**
 * A document a driver uploaded, as a thumbnail that opens full size. The images are served only
 * with the admin bearer, which an `<img src>` can't send, so each one is read as a blob (through
 * swr: a card opened again shows them at once) and shown through an object URL that is released
 * when the thumbnail goes away.
 */
import { useEffect, useState } from 'react';
import useSWR from 'swr';
import { getBlob } from '../runtime/api.js';
import { dataOf, READ_ONCE, type RequestError } from '../runtime/reads.js';
import { Dialog } from '../ui/Dialog.js';
import { checkRefusal, type AdminKey, type AdminSession } from './adminApi.js';

const IMAGE_FAILED = 'Could not load this image.'; // only if the server gave no message

const readImage = ([path, bearer]: AdminKey): Promise<Blob> => dataOf(getBlob(path, bearer), IMAGE_FAILED);

/** The image as an object URL while the thumbnail is shown. */
function useObjectUrl(blob: Blob | undefined): string | undefined {
  const [src, setSrc] = useState<string>();
  useEffect(() => {
    if (!blob) return;
    const objectUrl = URL.createObjectURL(blob);
    setSrc(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [blob]);
  return src;
}

/** The full-size view, in the browser's own modal dialog: Escape or Close returns to the thumbnail. */
function ImageDialog({ src, label, id, onClose }: { src: string; label: string; id: string; onClose: () => void }) {
  return (
    <Dialog labelledBy={id} className="admin-overlay" onCancel={onClose}>
      <div className="admin-overlay-bar">
        <h2 id={id} className="admin-overlay-title">
          {label}
        </h2>
        <button type="button" className="admin-overlay-close" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
      <img className="admin-overlay-image" src={src} alt={label} />
    </Dialog>
  );
}

export function DocumentThumbnail({ url, label, session }: { url: string; label: string; session: AdminSession }) {
  const { data, error, isLoading, mutate } = useSWR<Blob, RequestError>([url, session.bearer], readImage, {
    ...READ_ONCE,
    onError: (failed) => checkRefusal(session, failed),
  });
  const src = useObjectUrl(data);
  // A retry shows the spinner again until it ends.
  const failed = error !== undefined && !isLoading;
  const [open, setOpen] = useState(false);
  const dialogId = `admin-image-${url.replace(/\W/g, '-')}`;

  if (src) {
    return (
      <div className="admin-thumb">
        <button type="button" className="admin-thumb-button" onClick={() => setOpen(true)}>
          <img className="admin-thumb-image" src={src} alt="" />
          <span className="admin-thumb-label">{label}</span>
        </button>
        {open && <ImageDialog src={src} label={label} id={dialogId} onClose={() => setOpen(false)} />}
      </div>
    );
  }
  return (
    <div className="admin-thumb">
      <div className="admin-thumb-placeholder">
        {failed ? (
          <>
            <span>{error.message}</span>
            <button type="button" className="admin-link-button" onClick={() => void mutate()}>
              Retry<span className="visually-hidden"> {label}</span>
            </button>
          </>
        ) : (
          <span className="spinner" aria-hidden="true" />
        )}
      </div>
      <span className="admin-thumb-label">
        {label}
        {!failed && <span className="visually-hidden"> (loading)</span>}
      </span>
    </div>
  );
}
