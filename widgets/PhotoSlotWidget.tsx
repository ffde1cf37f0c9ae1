import { useEffect, useRef, useState, useSyncExternalStore, type ChangeEvent } from 'react';
import type { ErrorSchema, WidgetProps } from '@rjsf/utils';
import { clearPhoto, getPhoto, photosVersion, photoUrl, sentShareOf, setPhoto, subscribePhotos } from './photoStore';
import { DEFAULT_JPEG_QUALITY, DEFAULT_MAX_EDGE_PX, MAX_ORIGINAL_BYTES, isPreviewable, pickedFileType, resizeToJpeg } from './resizeImage';
import { cx, describedBy, hasErrors, optionNumber, optionString, widgetText } from './widgetProps';

type Capture = 'user' | 'environment' | undefined;

/**
 * `ui:options.capture`: "environment" (back camera, the default), "user" (front camera, the
 * default for a round profile photo) or false (let the phone offer the gallery too).
 */
function captureOf(options: WidgetProps['options'], round: boolean): Capture {
  const capture = options.capture;
  if (capture === false || capture === 'none') return undefined;
  if (capture === 'user' || capture === 'environment') return capture;
  return round ? 'user' : 'environment';
}

function CameraIcon() {
  return (
    <svg className="w-photo__icon" viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M9 3 7.2 5H4a2 2 0 0 0-2 2v11a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2V7a2 2 0 0 0-2-2h-3.2L15 3H9Zm3 5a5 5 0 1 1 0 10 5 5 0 0 1 0-10Zm0 2a3 3 0 1 0 0 6 3 3 0 0 0 0-6Z"
      />
    </svg>
  );
}

/**
 * A tappable photo slot: takes a photo with the camera (or picks a file), shrinks it in the
 * browser, previews it and lets the driver remove it; while the step is sent, it shows how much
 * of its photo has gone out.
 *
 * The form value is the photo's content type ("image/jpeg"), so the schema's image rule judges it;
 * the bytes go to the photo store under the field name, for the step page's multipart upload.
 *
 * ui:options: shape ("round" → front camera, round slot), emptyLabel, filledLabel (default: the
 * field's title), capture, maxEdge (px, 1600), quality (0.8), maxOriginalBytes (10 MiB),
 * accept ("image/*"), processingLabel, removeLabel, tooLargeMessage, sendingLabel, sentLabel.
 */
export default function PhotoSlotWidget(props: WidgetProps) {
  const { id, name, value, label, hideLabel, options, disabled, readonly, autofocus, htmlName, onChange, onBlur, onFocus } = props;
  const contentType = typeof value === 'string' && value !== '' ? value : undefined;

  const round = optionString(options, 'shape') === 'round';
  const capture = captureOf(options, round);
  const accept = optionString(options, 'accept') ?? 'image/*';
  const maxEdge = optionNumber(options, 'maxEdge') ?? DEFAULT_MAX_EDGE_PX;
  const quality = optionNumber(options, 'quality') ?? DEFAULT_JPEG_QUALITY;
  const maxOriginalBytes = optionNumber(options, 'maxOriginalBytes') ?? MAX_ORIGINAL_BYTES;
  const title = label || name;
  const emptyLabel = optionString(options, 'emptyLabel') ?? title;
  const filledLabel = optionString(options, 'filledLabel') ?? title;
  const processingLabel = widgetText(props, 'processingLabel', 'photoProcessing');
  const removeLabel = widgetText(props, 'removeLabel', 'photoRemove');
  const tooLargeMessage = widgetText(props, 'tooLargeMessage', 'photoTooLarge');
  const sendingLabel = widgetText(props, 'sendingLabel', 'photoSending');
  const sentLabel = widgetText(props, 'sentLabel', 'photoSent');

  useSyncExternalStore(subscribePhotos, photosVersion, photosVersion);
  const blob = getPhoto(name);
  const filled = contentType !== undefined && blob !== undefined;
  const previewUrl = filled && isPreviewable(blob.type) ? photoUrl(name) : undefined;
  const sent = filled ? sentShareOf(name) : undefined;

  const [busy, setBusy] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  // Each pick (and each remove) takes a ticket; a slow resize that finishes after a newer pick is dropped.
  const ticket = useRef(0);

  // A value restored without its bytes (e.g. after a reload) would pass validation and upload
  // nothing: forget it, so the required rule asks for the photo again.
  useEffect(() => {
    if (contentType?.startsWith('image/') && getPhoto(name) === undefined) onChange(undefined);
    // Only on mount: afterwards value and store change together, in this widget.
  }, []);

  async function takeFile(file: File) {
    const mine = ++ticket.current;
    const type = pickedFileType(file);
    if (!type.startsWith('image/')) {
      // Not an image: keep nothing and let the schema's image rule show its message.
      clearPhoto(name);
      onChange(type);
      return;
    }
    setBusy(true);
    try {
      const resized = await resizeToJpeg(file, maxEdge, quality);
      if (mine !== ticket.current) return;
      if (resized) {
        setPhoto(name, resized);
        onChange(resized.type || 'image/jpeg');
      } else if (file.size <= maxOriginalBytes) {
        // The browser cannot decode it (HEIC in Chrome): send the original, the server re-encodes.
        setPhoto(name, file);
        onChange(type);
      } else {
        clearPhoto(name);
        onChange(undefined, { __errors: [tooLargeMessage] } as ErrorSchema);
      }
    } finally {
      if (mine === ticket.current) setBusy(false);
    }
  }

  function handleChange(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    // Reset, so choosing the same file again (after a remove, or to retry) still fires a change.
    event.target.value = '';
    if (file) void takeFile(file);
  }

  function handleRemove() {
    ticket.current += 1;
    setBusy(false);
    clearPhoto(name);
    onChange(undefined);
    // The Remove button disappears; keep the keyboard focus on the slot.
    inputRef.current?.focus();
  }

  const inactive = disabled || readonly;
  const invalid = hasErrors(props);
  const sendingText = sent === undefined ? undefined : sent < 1 ? `${sendingLabel} ${Math.round(sent * 100)}%` : sentLabel;
  const actionText = busy ? processingLabel : (sendingText ?? (filled ? filledLabel : emptyLabel));

  return (
    <div
      className={cx(
        'w-photo',
        round && 'w-photo--round',
        filled && 'w-photo--filled',
        busy && 'w-photo--busy',
        invalid && 'w-photo--invalid',
        inactive && 'w-photo--disabled',
      )}
    >
      <label className="w-photo__slot" aria-busy={busy || undefined}>
        <input
          ref={inputRef}
          className="w-visually-hidden"
          id={id}
          name={htmlName || id}
          type="file"
          accept={accept}
          capture={capture}
          // A file input has no read-only state, so read-only disables it (hence not inputStateProps).
          disabled={inactive}
          autoFocus={autofocus}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy(id)}
          onChange={handleChange}
          onFocus={() => onFocus(id, contentType)}
          onBlur={() => onBlur(id, contentType)}
        />
        {previewUrl ? <img className="w-photo__preview" src={previewUrl} alt="" decoding="async" /> : <CameraIcon />}
        {hideLabel && <span className="w-photo__title">{title}</span>}
        <span className="w-photo__action">
          {busy && <span className="w-spinner" aria-hidden="true" />}
          {actionText}
        </span>
        {sent !== undefined && <progress className="w-photo__progress" max={1} value={sent} aria-label={`${title}: ${sendingText}`} />}
      </label>
      {filled && !busy && (
        <button
          type="button"
          className="w-photo__remove"
          disabled={inactive || sent !== undefined}
          aria-label={`${removeLabel} ${title}`}
          onClick={handleRemove}
        >
          {removeLabel}
        </button>
      )}
      <span className="w-visually-hidden" role="status">
        {busy ? processingLabel : ''}
      </span>
    </div>
  );
}
