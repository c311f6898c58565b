import type { FormatExtractor } from '../types.js';
import { extractImage } from './extract-image.js';

/** Images (PNG, JPEG, TIFF with one or more pages, WebP): text read by OCR, one page per TIFF page (see {@link extractImage}). */
export const extract: FormatExtractor = (bytes, opts) => extractImage(bytes, opts);
