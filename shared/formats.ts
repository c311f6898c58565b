/** The source formats the service extracts text from. */
export const SOURCE_FORMATS = ['pdf', 'docx', 'html', 'markdown', 'txt'] as const;
export type SourceFormat = (typeof SOURCE_FORMATS)[number];

/** The MIME type recorded for each format. */
export const FORMAT_MIME: Record<SourceFormat, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  html: 'text/html',
  markdown: 'text/markdown',
  txt: 'text/plain',
};
