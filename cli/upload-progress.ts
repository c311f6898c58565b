import { bar } from './progress.js';

/** `512 B`, `12.3 KB`, `45.0 MB` (1024-based, as the batch limits are). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export interface UploadProgressOptions {
  /** Off a terminal: the least time between two lines (default 2 s). */
  intervalMs?: number;
  /** On a terminal: the least time between two redraws (default 100 ms). */
  redrawMs?: number;
  now?: () => number;
}

/**
 * Shows the bytes of a batch sent while it uploads: on a terminal one line
 * redrawn in place with a bar; elsewhere (a pipe, a log) a line when the
 * batch starts and then one every `intervalMs` while it is under way, so a
 * large upload is never silent.
 */
export function createUploadProgress(out: NodeJS.WritableStream & { isTTY?: boolean }, opts: UploadProgressOptions = {}) {
  const { intervalMs = 2_000, redrawMs = 100, now = Date.now } = opts;
  let label = '';
  let total = 0;
  let last = 0;
  let drawn = false;
  const line = (sent: number) => `${label}: ${formatBytes(Math.min(sent, total))} of ${formatBytes(total)}`;
  return {
    /** A batch begins: `label` names it, `totalBytes` is its files' size. */
    start(batchLabel: string, totalBytes: number): void {
      label = batchLabel;
      total = totalBytes;
      last = now();
      if (out.isTTY) {
        out.write(`\r\x1b[2K${bar(0)} ${line(0)}`);
        drawn = true;
      } else out.write(`${label}: uploading ${formatBytes(total)}\n`);
    },
    /** Bytes of the batch's request sent so far (the form's own bytes included). */
    update(sent: number): void {
      const t = now();
      if (t - last < (out.isTTY ? redrawMs : intervalMs)) return;
      last = t;
      if (out.isTTY) out.write(`\r\x1b[2K${bar(total ? sent / total : 1)} ${line(sent)}`);
      else out.write(`${line(sent)} sent\n`);
    },
    /** The batch is answered: the progress line gives way to `summary`. */
    done(summary: string): void {
      if (drawn) out.write('\r\x1b[2K');
      drawn = false;
      out.write(`${summary}\n`);
    },
  };
}
