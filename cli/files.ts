import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';

/** A file found on disk, with its size for batching. */
export interface LocalFile {
  path: string;
  /** Name sent to the service: the path under the folder pushed. */
  name: string;
  size: number;
}

/** Every regular file under the given files and folders, dot files and folders left out, in a stable order. */
export async function collectFiles(targets: string[]): Promise<LocalFile[]> {
  const out: LocalFile[] = [];
  const walk = async (dir: string, root: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const path = join(dir, e.name);
      if (e.isDirectory()) await walk(path, root);
      else if (e.isFile()) out.push({ path, name: relative(root, path), size: (await stat(path)).size });
    }
  };
  for (const target of targets) {
    const st = await stat(target);
    if (st.isDirectory()) await walk(target, target);
    else out.push({ path: target, name: basename(target), size: st.size });
  }
  return out;
}

/** Limits of one request, from the service's defaults unless told otherwise. */
export interface BatchLimits {
  /** MAX_SOURCES_PER_REQUEST (100). */
  maxFiles: number;
  /** Bytes of files per request, kept under MAX_REQUEST_BYTES (100 MiB) with room for the form. */
  maxBytes: number;
}

/**
 * Files in batches that each fit one request, in order. A file alone larger
 * than `maxBytes` still gets a batch of its own (the service answers for it).
 */
export function batches(files: LocalFile[], limits: BatchLimits): LocalFile[][] {
  const out: LocalFile[][] = [];
  let cur: LocalFile[] = [];
  let bytes = 0;
  for (const f of files) {
    if (cur.length > 0 && (cur.length >= limits.maxFiles || bytes + f.size > limits.maxBytes)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(f);
    bytes += f.size;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/**
 * The Idempotency-Key of a batch: a digest of where it goes and of its names
 * and bytes. Pushing the same folder again after an interruption sends the
 * same keys, so a batch that already went through is answered from the
 * service's record and nothing is added twice.
 */
export async function batchKey(target: string, batch: LocalFile[]): Promise<string> {
  const h = createHash('sha256').update(target);
  for (const f of batch) h.update(`\0${f.name}\0`).update(await readFile(f.path));
  return `kb-ingest-push-${h.digest('hex').slice(0, 48)}`;
}
