/**
 * Every accepted photo and document is decoded and encoded again before it is stored
 * (research/anchors-security.md §3, "image rewriting"):
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
 */
import sharp, { type Metadata, type Sharp } from 'sharp';
import { HttpError } from '../errors.js';

export const MAX_IMAGE_PIXELS = 40_000_000;
export const IMAGE_TOO_LARGE_MESSAGE = 'Each image must be at most 40 megapixels.';
export const IMAGE_UNREADABLE_MESSAGE = 'This image could not be read. Please take the photo again.';
export const JPEG_QUALITY = 85;

// Each upload is decoded once: caching its pixels only keeps identity documents in memory.
sharp.cache(false);

interface Rewrite {
  /** The format sharp must find in the bytes (it detects the format itself). */
  input: string;
  mime: string;
  encode: (image: Sharp) => Sharp;
}

const toJpeg = (image: Sharp) => image.flatten({ background: '#ffffff' }).jpeg({ quality: JPEG_QUALITY, mozjpeg: false });
const toPng = (image: Sharp) => image.png();

/** By sniffed type (plugins/uploads.ts `sniffImageType`). */
const REWRITES: Record<string, Rewrite> = {
  'image/jpeg': { input: 'jpeg', mime: 'image/jpeg', encode: toJpeg },
  'image/png': { input: 'png', mime: 'image/png', encode: toPng },
  'image/webp': { input: 'webp', mime: 'image/webp', encode: (image) => image.webp({ quality: JPEG_QUALITY }) },
  'image/gif': { input: 'gif', mime: 'image/png', encode: toPng },
  'image/heic': { input: 'heif', mime: 'image/jpeg', encode: toJpeg },
  'image/heif': { input: 'heif', mime: 'image/jpeg', encode: toJpeg },
};

export interface ReencodedImage {
  bytes: Buffer;
  mime: string;
}

/**
 * The image (a file's path, or its bytes) decoded, turned upright and encoded again without metadata. Throws a 413 for more
 * than 40 megapixels and a 400 for bytes that are not a readable image of the sniffed type;
 * both carry the message under `field` too, so the form shows it beside that photo.
 */
export async function reencodeImage(input: string | Buffer, sniffedMime: string, field: string): Promise<ReencodedImage> {
  const refuse = (status: number, message: string) => new HttpError(status, message, { [field]: [message] });
  const rewrite = Object.hasOwn(REWRITES, sniffedMime) ? REWRITES[sniffedMime] : undefined;
  if (!rewrite) throw refuse(400, IMAGE_UNREADABLE_MESSAGE);
  // failOn 'warning' (sharp's default, said here on purpose): a truncated or damaged image is refused.
  const open = () => sharp(input, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'warning', pages: 1 });
  let header: Metadata;
  try {
    // Reads the header only; an image over the limit has not been decoded yet.
    header = await sharp(input, { limitInputPixels: false, pages: 1 }).metadata();
  } catch {
    throw refuse(400, IMAGE_UNREADABLE_MESSAGE);
  }
  if (header.format !== rewrite.input) throw refuse(400, IMAGE_UNREADABLE_MESSAGE);
  if ((header.width ?? 0) * (header.height ?? 0) > MAX_IMAGE_PIXELS) throw refuse(413, IMAGE_TOO_LARGE_MESSAGE);
  try {
    return { bytes: await rewrite.encode(open().rotate()).toBuffer(), mime: rewrite.mime };
  } catch (error) {
    if (error instanceof Error && /pixel limit/i.test(error.message)) throw refuse(413, IMAGE_TOO_LARGE_MESSAGE);
    throw refuse(400, IMAGE_UNREADABLE_MESSAGE);
  }
}
