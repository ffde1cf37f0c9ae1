/**
 * A document a driver uploaded, as a thumbnail that opens full size. The images are served only
 * with the admin bearer, which an `<img src>` can't send, so each one is fetched as a blob and
 * shown through an object URL that is released when the thumbnail goes away.
 */
import { useEffect, useEffectEvent, useState } from 'react';
import { getBlob } from '../api.js';
import { Dialog } from '../Dialog.js';
import { isRefusal, type AdminSession } from './adminApi.js';

type ImageState = { state: 'loading' } | { state: 'ready'; src: string } | { state: 'failed'; message?: string };

function useDocumentImage(url: string, session: AdminSession): { image: ImageState; retry: () => void } {
  const [image, setImage] = useState<ImageState>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const { bearer } = session;
  const refused = useEffectEvent((message?: string) => session.refused(message));

  useEffect(() => {
    let cancelled = false;
    let objectUrl: string | undefined;
    setImage({ state: 'loading' });
    void getBlob(url, bearer).then((result) => {
      if (cancelled) return;
      if (result.ok) {
        objectUrl = URL.createObjectURL(result.blob);
        setImage({ state: 'ready', src: objectUrl });
      } else if (isRefusal(result.status)) {
        refused(result.message);
      } else {
        setImage({ state: 'failed', message: result.message });
      }
    });
    return () => {
      cancelled = true;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [url, bearer, attempt]);

  return { image, retry: () => setAttempt((n) => n + 1) };
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
  const { image, retry } = useDocumentImage(url, session);
  const [open, setOpen] = useState(false);
  const dialogId = `admin-image-${url.replace(/\W/g, '-')}`;

  if (image.state === 'ready') {
    return (
      <div className="admin-thumb">
        <button type="button" className="admin-thumb-button" onClick={() => setOpen(true)}>
          <img className="admin-thumb-image" src={image.src} alt="" />
          <span className="admin-thumb-label">{label}</span>
        </button>
        {open && <ImageDialog src={image.src} label={label} id={dialogId} onClose={() => setOpen(false)} />}
      </div>
    );
  }
  return (
    <div className="admin-thumb">
      <div className="admin-thumb-placeholder">
        {image.state === 'loading' ? (
          <span className="spinner" aria-hidden="true" />
        ) : (
          <>
            <span>{image.message ?? 'Could not load this image.'}</span>
            <button type="button" className="admin-link-button" onClick={retry}>
              Retry<span className="visually-hidden"> {label}</span>
            </button>
          </>
        )}
      </div>
      <span className="admin-thumb-label">
        {label}
        {image.state === 'loading' && <span className="visually-hidden"> (loading)</span>}
      </span>
    </div>
  );
}
