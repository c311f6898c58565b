const MIB = 1024 * 1024;

/**
 * A byte limit as the contract writes it: whole mebibytes as `25 MB`
 * (26,214,400 bytes), anything else in bytes.
 */
export function formatLimit(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MB` : `${bytes} bytes`;
}

/**
 * The 413 message of a file over MAX_FILE_BYTES. At the default (25 MB) it is
 * the contract's text exactly: `An uploaded file exceeds the per-file size
 * limit (25 MB).`
 */
export function fileTooLargeMessage(maxFileBytes: number): string {
  return `An uploaded file exceeds the per-file size limit (${formatLimit(maxFileBytes)}).`;
}
