/**
 * Shrinks a phone photo in the browser before it is uploaded: a 5 MB camera photo becomes about
 * 330 KB at a 1600 px long edge and JPEG quality 0.8 (docs/performance.md), i.e. ~4 s
 * instead of ~60 s on a slow uplink. Re-encoding also drops the EXIF block (GPS position).
 */

export const DEFAULT_MAX_EDGE_PX = 1600;
export const DEFAULT_JPEG_QUALITY = 0.8;
/** A photo the browser cannot decode (HEIC in Chrome) is sent as it is, up to this size: 10 MiB. */
export const MAX_ORIGINAL_BYTES = 10 * 1024 * 1024;

/** The size of an image scaled down (never up) so that its long edge is at most `maxEdge`. */
export function fitWithin(width: number, height: number, maxEdge: number): { width: number; height: number } {
  const longEdge = Math.max(width, height);
  if (longEdge <= maxEdge || longEdge <= 0) return { width, height };
  const scale = maxEdge / longEdge;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

const TYPE_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
};

/**
 * The content type of a chosen file. Some Android pickers hand over HEIC photos with an empty
 * type, so an empty type is guessed from the file name before the file is judged not an image.
 */
export function pickedFileType(file: { type: string; name: string }): string {
  if (file.type) return file.type;
  const extension = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase();
  return (extension && TYPE_BY_EXTENSION[extension]) || 'application/octet-stream';
}

/** Whether the browser can show this blob in an `<img>` preview (HEIC mostly cannot). */
export function isPreviewable(type: string): boolean {
  return /^image\/(jpeg|png|webp|gif)$/.test(type);
}

interface Decoded {
  source: CanvasImageSource;
  width: number;
  height: number;
  release: () => void;
}

async function decode(blob: Blob): Promise<Decoded> {
  if (typeof createImageBitmap === 'function') {
    // The default orientation honours the photo's EXIF rotation.
    const bitmap = await createImageBitmap(blob);
    return { source: bitmap, width: bitmap.width, height: bitmap.height, release: () => bitmap.close() };
  }
  // Older web views without createImageBitmap: decode through an <img>.
  const url = URL.createObjectURL(blob);
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    // An <img> holds nothing to release once its URL is revoked.
    return { source: image, width: image.naturalWidth, height: image.naturalHeight, release: () => undefined };
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * The photo redrawn with its long edge at most `maxEdge` px and encoded as JPEG, or `null` when the
 * browser cannot decode or encode it (the caller then keeps the original).
 */
export async function resizeToJpeg(file: Blob, maxEdge: number = DEFAULT_MAX_EDGE_PX, quality: number = DEFAULT_JPEG_QUALITY): Promise<Blob | null> {
  let decoded: Decoded;
  try {
    decoded = await decode(file);
  } catch {
    // Not an image this browser can decode: null, and the caller keeps the file as it is.
    return null;
  }
  const canvas = document.createElement('canvas');
  try {
    const { width, height } = fitWithin(decoded.width, decoded.height, maxEdge);
    if (width === 0 || height === 0) return null;
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext('2d');
    if (!context) return null;
    // JPEG has no transparency: without a background a transparent PNG turns black.
    context.fillStyle = '#fff';
    context.fillRect(0, 0, width, height);
    context.imageSmoothingEnabled = true;
    context.imageSmoothingQuality = 'high';
    context.drawImage(decoded.source, 0, 0, width, height);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', quality));
    return blob && blob.size > 0 ? blob : null;
  } catch {
    // A canvas the browser can't draw or encode (too large for its memory): as above, null.
    return null;
  } finally {
    decoded.release();
    // iOS caps the memory of all canvases together; give this one back at once.
    canvas.width = 0;
    canvas.height = 0;
  }
}
