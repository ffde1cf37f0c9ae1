import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { imageTypeOf } from '../../../src/server/lib/reencodeImage.js';
import { JPEG_BYTES, PNG_BYTES, solidImage, TEXT_BYTES } from '../../support/server.js';

const scratch = mkdtempSync(join(tmpdir(), 'onramp-image-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An AVIF, and the same AV1-coded image under the generic "mif1" brand: HEIF as sharp decodes it. */
const AVIF_BYTES = await solidImage().heif({ compression: 'av1' }).toBuffer();
const HEIF_BYTES = Buffer.from(AVIF_BYTES);
HEIF_BYTES.write('mif1', 8, 'latin1');
const [WEBP_BYTES, GIF_BYTES, TIFF_BYTES] = await Promise.all([solidImage().webp().toBuffer(), solidImage().gif().toBuffer(), solidImage().tiff().toBuffer()]);

describe('imageTypeOf', () => {
  it.each([
    ['JPEG', JPEG_BYTES, 'image/jpeg'],
    ['PNG', PNG_BYTES, 'image/png'],
    ['WebP', WEBP_BYTES, 'image/webp'],
    ['GIF', GIF_BYTES, 'image/gif'],
    ['HEIF', HEIF_BYTES, 'image/heif'],
    ['a JPEG cut short (the form takes it; decoding refuses it)', JPEG_BYTES.subarray(0, 100), 'image/jpeg'],
    ['AVIF', AVIF_BYTES, 'application/octet-stream'],
    ['TIFF', TIFF_BYTES, 'application/octet-stream'],
    ['text', TEXT_BYTES, 'application/octet-stream'],
    ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"/>'), 'application/octet-stream'],
    ['an MP4 (ftyp, not an image brand)', Buffer.concat([Buffer.alloc(4), Buffer.from('ftypisom')]), 'application/octet-stream'],
    ['nothing', Buffer.alloc(0), 'application/octet-stream'],
  ])('reads %s', async (name, bytes, type) => {
    const path = join(scratch, `upload-${name.replace(/\W+/g, '-')}`);
    writeFileSync(path, bytes);
    expect(await imageTypeOf(path)).toBe(type);
  });
});
