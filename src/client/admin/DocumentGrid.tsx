/**
 * Every image a driver uploaded, as thumbnails that open full size. The images are served only
 * with the admin bearer, which an `<img src>` can't send, so each one is fetched as a blob and
 * shown through an object URL that is released when the thumbnail goes away.
 */
import { useEffect, useRef, useState, useEffectEvent } from 'react';
import { createPortal } from 'react-dom';
import { getBlob } from '../api.js';
import { isRefusal, type AdminSession } from './adminApi.js';
import { documentLabel, missingDocuments, sortedDocuments, type AdminDocument } from './adminData.js';

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

interface OpenImage {
  src: string;
  label: string;
  opener: HTMLElement;
}

function DocumentThumbnail({ document, session, onOpen }: { document: AdminDocument; session: AdminSession; onOpen: (image: OpenImage) => void }) {
  const { image, retry } = useDocumentImage(document.url, session);
  const label = documentLabel(document.field);

  if (image.state === 'ready') {
    return (
      <li className="admin-thumb">
        <button type="button" className="admin-thumb-button" onClick={(event) => onOpen({ src: image.src, label, opener: event.currentTarget })}>
          <img className="admin-thumb-image" src={image.src} alt="" />
          <span className="admin-thumb-label">{label}</span>
        </button>
      </li>
    );
  }
  return (
    <li className="admin-thumb">
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
    </li>
  );
}

/** The full-size view: a modal dialog that takes focus, keeps it, and gives it back to the thumbnail. */
function ImageOverlay({ image, onClose }: { image: OpenImage; onClose: () => void }) {
  const closeButton = useRef<HTMLButtonElement>(null);
  const close = useEffectEvent(onClose);

  useEffect(() => {
    closeButton.current?.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        close();
      } else if (event.key === 'Tab') {
        // The close button is the only control inside, so Tab stays on it.
        event.preventDefault();
        closeButton.current?.focus();
      }
    };
    document.addEventListener('keydown', onKeyDown);
    const { overflow } = document.body.style;
    document.body.style.overflow = 'hidden'; // the page behind must not scroll under the image
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      document.body.style.overflow = overflow;
      image.opener.focus();
    };
  }, [image]);

  // A portal, so no card's overflow or stacking can clip the overlay.
  return createPortal(
    <div
      className="admin-overlay"
      role="dialog"
      aria-modal="true"
      aria-labelledby="admin-overlay-title"
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
    >
      <div className="admin-overlay-bar">
        <h2 id="admin-overlay-title" className="admin-overlay-title">
          {image.label}
        </h2>
        <button ref={closeButton} type="button" className="admin-overlay-close" onClick={onClose}>
          Close
        </button>
      </div>
      <img className="admin-overlay-image" src={image.src} alt={image.label} />
    </div>,
    document.body,
  );
}

export function DocumentGrid({ documents, session, driverName }: { documents: AdminDocument[]; session: AdminSession; driverName: string }) {
  const [open, setOpen] = useState<OpenImage>();
  const missing = missingDocuments(documents);

  return (
    <>
      {documents.length === 0 ? (
        <p className="admin-muted">No images uploaded yet.</p>
      ) : (
        <ul className="admin-thumbs" aria-label={`Images uploaded by ${driverName}`}>
          {sortedDocuments(documents).map((document) => (
            <DocumentThumbnail key={document.id} document={document} session={session} onOpen={setOpen} />
          ))}
        </ul>
      )}
      {missing.length > 0 && documents.length > 0 && <p className="admin-muted">Not uploaded: {missing.join(', ')}.</p>}
      {open && <ImageOverlay image={open} onClose={() => setOpen(undefined)} />}
    </>
  );
}
