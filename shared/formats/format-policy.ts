import { DEFAULT_ACCEPTED_FORMATS, FORMAT_LABEL, SOURCE_FORMATS, type SourceFormat } from './formats.js';

/** Names `ACCEPTED_FORMATS` takes besides the formats themselves. */
const ALIASES: Record<string, SourceFormat> = {
  md: 'markdown', text: 'txt', htm: 'html', tsv: 'csv', xlsm: 'xlsx',
  images: 'image', png: 'image', jpeg: 'image', jpg: 'image', tiff: 'image', tif: 'image', webp: 'image',
};
// The contract's order first, so the default list prints exactly as the contract's 415 message does.
const LABEL_ORDER = Object.keys(FORMAT_LABEL) as SourceFormat[];

/**
 * Parses `ACCEPTED_FORMATS`: `all`, or a comma-separated list of format
 * names (`pdf,docx,pptx,xlsx,csv,image`; `md`, `tsv`, `xlsm`, and `png`, `jpeg`,
 * `tiff`, `webp` for `image`, are aliases).
 * Returns the formats in the contract's order, or the problem as a message
 * for the configuration error. An empty value means the default five.
 */
export function parseAcceptedFormats(value: string | undefined): { formats: SourceFormat[] } | { error: string } {
  const raw = (value ?? '').trim().toLowerCase();
  if (raw === '') return { formats: [...DEFAULT_ACCEPTED_FORMATS] };
  if (raw === 'all') return { formats: [...LABEL_ORDER] };
  const chosen = new Set<SourceFormat>();
  const unknown: string[] = [];
  for (const item of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const format = ALIASES[item] ?? (SOURCE_FORMATS as readonly string[]).find((f) => f === item);
    if (format) chosen.add(format as SourceFormat);
    else unknown.push(item);
  }
  if (unknown.length > 0) {
    return { error: `unknown format ${unknown.map((u) => `"${u}"`).join(', ')}; use "all" or a comma-separated list of ${LABEL_ORDER.join(', ')}` };
  }
  if (chosen.size === 0) return { error: 'must name at least one format, or be "all"' };
  return { formats: LABEL_ORDER.filter((f) => chosen.has(f)) };
}

/** True when `accepted` is the contract's five, in any order. */
export function isDefaultPolicy(accepted: readonly SourceFormat[]): boolean {
  return accepted.length === DEFAULT_ACCEPTED_FORMATS.length && DEFAULT_ACCEPTED_FORMATS.every((f) => accepted.includes(f));
}

/**
 * The 415 message for a deployment accepting `accepted`, in the contract's
 * wording: at the default it is byte for byte the contract's
 * `Uploaded file type is not supported. Allowed: PDF, TXT, HTML, Markdown, DOCX.`
 */
export function unsupportedTypeMessage(accepted: readonly SourceFormat[] = DEFAULT_ACCEPTED_FORMATS): string {
  const labels = LABEL_ORDER.filter((f) => accepted.includes(f)).map((f) => FORMAT_LABEL[f]);
  return `Uploaded file type is not supported. Allowed: ${labels.join(', ')}.`;
}

/**
 * The message an upload refused for its type carries: undefined at the
 * default policy, so the API's table gives the contract's own message.
 */
export function refusalMessage(accepted: readonly SourceFormat[] | undefined): string | undefined {
  return accepted === undefined || isDefaultPolicy(accepted) ? undefined : unsupportedTypeMessage(accepted);
}
