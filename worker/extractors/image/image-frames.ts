/**
 * Reads the size of an image from its header, without decoding it, so a
 * decompression bomb is refused before Tesseract allocates it; and splits a
 * multi-page TIFF into single-page TIFFs by relinking its IFD chain (offsets
 * in TIFF are absolute, so the image data stays where it is).
 */

/** One page of an image file: its size in pixels, and its bytes as Tesseract gets them (made when asked: a TIFF page is a copy). */
export interface ImageFrame {
  bytes: () => Uint8Array;
  width: number;
  height: number;
}

// A TIFF holding more pages than this is not walked further.
const MAX_TIFF_FRAMES = 10_000;

/** The frames of a PNG, JPEG, WebP or TIFF (one each except TIFF); undefined when the header cannot be read. */
export function imageFrames(bytes: Uint8Array): ImageFrame[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ascii = (at: number, n: number) => Buffer.from(bytes.subarray(at, at + n)).toString('latin1');
  try {
    if (ascii(1, 3) === 'PNG') return [{ bytes: () => bytes, width: view.getUint32(16), height: view.getUint32(20) }];
    if (bytes[0] === 0xff && bytes[1] === 0xd8) return one(bytes, jpegSize(view));
    if (ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') return one(bytes, webpSize(view, ascii));
    if (ascii(0, 2) === 'II' || ascii(0, 2) === 'MM') return tiffFrames(bytes, view, ascii(0, 2) === 'II');
  } catch {
    // A header cut short (RangeError) reads as no size.
  }
  return undefined;
}

function one(bytes: Uint8Array, size: { width: number; height: number } | undefined): ImageFrame[] | undefined {
  return size && [{ bytes: () => bytes, ...size }];
}

/** The first start-of-frame marker's size (SOF0–SOF15 but DHT, JPG and DAC). */
function jpegSize(view: DataView): { width: number; height: number } | undefined {
  for (let at = 2; at + 9 < view.byteLength;) {
    if (view.getUint8(at) !== 0xff) return undefined;
    const marker = view.getUint8(at + 1);
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
    }
    at += 2 + view.getUint16(at + 2);
  }
  return undefined;
}

function webpSize(view: DataView, ascii: (at: number, n: number) => string): { width: number; height: number } | undefined {
  const chunk = ascii(12, 4);
  if (chunk === 'VP8X') return { width: 1 + (view.getUint32(24, true) & 0xffffff), height: 1 + (view.getUint32(27, true) & 0xffffff) };
  if (chunk === 'VP8L') {
    const bits = view.getUint32(21, true);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ') return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  return undefined;
}

/** Each IFD of a classic TIFF as a TIFF of its own: the header points at it and its next-IFD link is cut. */
function tiffFrames(bytes: Uint8Array, view: DataView, little: boolean): ImageFrame[] | undefined {
  if (view.getUint16(2, little) !== 42) return undefined;
  const frames: ImageFrame[] = [];
  const seen = new Set<number>();
  for (let ifd = view.getUint32(4, little); ifd !== 0 && frames.length < MAX_TIFF_FRAMES; ) {
    if (seen.has(ifd)) return undefined;
    seen.add(ifd);
    const entries = view.getUint16(ifd, little);
    let width = 0;
    let height = 0;
    for (let i = 0; i < entries; i++) {
      const at = ifd + 2 + i * 12;
      const tag = view.getUint16(at, little);
      const value = view.getUint16(at + 2, little) === 3 ? view.getUint16(at + 8, little) : view.getUint32(at + 8, little);
      if (tag === 256) width = value;
      else if (tag === 257) height = value;
    }
    const nextAt = ifd + 2 + entries * 12;
    const start = ifd;
    frames.push({ bytes: () => singleFrame(bytes, start, nextAt, little), width, height });
    ifd = view.getUint32(nextAt, little);
  }
  return frames.length ? frames : undefined;
}

function singleFrame(bytes: Uint8Array, ifd: number, nextAt: number, little: boolean): Uint8Array {
  const copy = new Uint8Array(bytes);
  const patch = new DataView(copy.buffer);
  patch.setUint32(4, ifd, little);
  patch.setUint32(nextAt, 0, little);
  return copy;
}
