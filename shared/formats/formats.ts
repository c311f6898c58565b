/** The source formats the service can extract text from (the deployment's policy decides which it accepts). */
export const SOURCE_FORMATS = ['pdf', 'docx', 'html', 'markdown', 'txt', 'csv', 'xlsx', 'ods', 'pptx', 'epub', 'odt', 'image'] as const;
export type SourceFormat = (typeof SOURCE_FORMATS)[number];

/** The public contract's five formats: what a deployment accepts unless `ACCEPTED_FORMATS` says otherwise. */
export const DEFAULT_ACCEPTED_FORMATS: readonly SourceFormat[] = ['pdf', 'txt', 'html', 'markdown', 'docx'];

/** The MIME type recorded for each format. */
export const FORMAT_MIME: Record<SourceFormat, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  html: 'text/html',
  markdown: 'text/markdown',
  txt: 'text/plain',
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  epub: 'application/epub+zip',
  odt: 'application/vnd.oasis.opendocument.text',
  // An image's own type (image/png, image/jpeg, image/tiff, image/webp) is recorded; this is the fallback.
  image: 'image/png',
};

/** How the 415 message names each format, in the contract's order and wording. */
export const FORMAT_LABEL: Record<SourceFormat, string> = {
  pdf: 'PDF',
  txt: 'TXT',
  html: 'HTML',
  markdown: 'Markdown',
  docx: 'DOCX',
  pptx: 'PPTX',
  xlsx: 'XLSX',
  ods: 'ODS',
  csv: 'CSV',
  epub: 'EPUB',
  odt: 'ODT',
  image: 'PNG, JPEG, TIFF, WebP',
};
