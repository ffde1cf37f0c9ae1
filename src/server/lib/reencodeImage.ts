/**
 * Every accepted photo and document is decoded and encoded again before it is stored
 * (docs/architecture.md, "Security rules the code keeps"):
 *
 * - metadata goes: a phone photo of an SSN card or licence carries EXIF with the GPS position
 *   of the driver's home, the camera and the time; sharp's output keeps none of it (never call
 *   withMetadata/keepExif here). `.rotate()` first applies the EXIF orientation to the pixels,
 *   so the photo still stands the right way up without it;
 * - pixel bombs are refused: a few hundred KB of PNG can declare 10000×10000 pixels (400 MB
 *   once decoded). The header is read first and anything over 40 megapixels is refused before
 *   a single pixel is decoded; `limitInputPixels` guards the decode itself as well;
 * - what is stored is what a decoder made of the bytes, not whatever else rode along in them
 *   (polyglot files, trailing data), and bytes that do not decode are refused.
 *
 * JPEG, PNG and WebP keep their format; GIF becomes PNG (its first frame) and HEIC/HEIF become
 * JPEG, which every browser shows. sharp's prebuilt binaries decode AVIF-coded HEIF but not HEVC
 * (most phone HEIC): those are refused as unreadable.
 *
 * What an upload is comes from sharp too: the format it reads in the header, never the client's
 * name or declared type.
 */
import sharp, { type Metadata, type Sharp } from 'sharp';
import { refusal } from '../serverMessages.js';

export const MAX_IMAGE_PIXELS = 40_000_000;
export const JPEG_QUALITY = 85;
const UNKNOWN_TYPE = 'application/octet-stream';

// Each upload is decoded once: caching its pixels only keeps identity documents in memory.
sharp.cache(false);

interface Rewrite {
  /** The content type of the format as uploaded. */
  type: string;
  /** The content type it is stored as. */
  mime: string;
  encode: (image: Sharp) => Sharp;
}

const toJpeg = (image: Sharp) => image.flatten({ background: '#ffffff' }).jpeg({ quality: JPEG_QUALITY, mozjpeg: false });
const toPng = (image: Sharp) => image.png();

/** The formats taken, by sharp's name for them. */
const REWRITES: Record<string, Rewrite> = {
  jpeg: { type: 'image/jpeg', mime: 'image/jpeg', encode: toJpeg },
  png: { type: 'image/png', mime: 'image/png', encode: toPng },
  webp: { type: 'image/webp', mime: 'image/webp', encode: (image) => image.webp({ quality: JPEG_QUALITY }) },
  gif: { type: 'image/gif', mime: 'image/png', encode: toPng },
  heif: { type: 'image/heif', mime: 'image/jpeg', encode: toJpeg },
};

/** The header only: an image over the pixel limit is not decoded by reading it. */
const readHeader = (path: string) => sharp(path, { limitInputPixels: false, pages: 1 }).metadata();

/** The rewrite of the format sharp found, if it is one taken. AVIF (sharp reports its brand as AV1 compression) is not. */
const rewriteOf = (header: Metadata) => (Object.hasOwn(REWRITES, header.format) && header.compression !== 'av1' ? REWRITES[header.format] : undefined);

/**
 * The form value of a file in a format sharp knows but whose header it cannot read (a photo cut
 * short): the form takes it for a photo, and decoding it refuses it as unreadable.
 */
const DAMAGED_IMAGE_TYPE = 'image/jpeg';

/**
 * The content type of an uploaded file as sharp reads its header, or "application/octet-stream".
 * It becomes the form value of the image field, so the step schema's own image rule and message
 * judge it.
 */
export async function imageTypeOf(path: string): Promise<string> {
  try {
    return rewriteOf(await readHeader(path))?.type ?? UNKNOWN_TYPE;
  } catch (error) {
    // sharp's words for a format it recognised, as against "unsupported image format".
    return error instanceof Error && /corrupt header/.test(error.message) ? DAMAGED_IMAGE_TYPE : UNKNOWN_TYPE;
  }
}

/**
 * The image in the file at `path` decoded, turned upright and encoded again without metadata into
 * the file at `to` (libvips writes it as it encodes: the encoded image is never whole in memory).
 * Returns the type it was encoded as. Throws a 413 for more than 40 megapixels and a 400 for bytes that are not a readable image of
 * a format taken; both carry the message under `field` too, so the form shows it beside that photo.
 */
export async function reencodeImage(path: string, to: string, field: string): Promise<string> {
  const refuse = (status: 400 | 413) => refusal(status, status === 413 ? 'files.imageTooLarge' : 'files.imageUnreadable', { fields: [field] });
  let header: Metadata;
  try {
    header = await readHeader(path);
  } catch {
    // Whatever sharp can't read a header from is not an image the driver can send: their 400.
    throw refuse(400);
  }
  const rewrite = rewriteOf(header);
  if (!rewrite) throw refuse(400);
  if ((header.width ?? 0) * (header.height ?? 0) > MAX_IMAGE_PIXELS) throw refuse(413);
  try {
    // failOn 'warning' (sharp's default, said here on purpose): a truncated or damaged image is refused.
    const image = sharp(path, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'warning', pages: 1 }).rotate();
    await rewrite.encode(image).toFile(to);
    return rewrite.mime;
  } catch (error) {
    if (error instanceof Error && /pixel limit/i.test(error.message)) throw refuse(413);
    throw refuse(400);
  }
}
