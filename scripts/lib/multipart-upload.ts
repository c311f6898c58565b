import { request } from 'node:http';
import { randomBytes } from 'node:crypto';

export interface UploadResult {
  status: number | undefined;
  body: string;
  error?: string;
  ms: number;
}

/**
 * PATCHes `files` files of `size` bytes of text each (one by default) as a
 * streamed multipart body, never holding them in memory: the bytes are
 * generated in 64 KiB chunks as the socket drains. Resolves with the status
 * even when the server answers early.
 */
export function streamUpload(url: string, apiKey: string, size: number, filename = 'big.txt', files = 1): Promise<UploadResult> {
  const boundary = `----kb${randomBytes(8).toString('hex')}`;
  const head = (i: number): Buffer =>
    Buffer.from(
      `${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Disposition: form-data; name="knowledge_base_files"; filename="${files === 1 ? filename : `${i}-${filename}`}"\r\nContent-Type: text/plain\r\n\r\n`,
    );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const heads = Array.from({ length: files }, (_, i) => head(i));
  const chunk = Buffer.alloc(64 * 1024, 'lorem ipsum dolor sit amet\n');
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: Omit<UploadResult, 'ms'>): void => {
      if (settled) return;
      settled = true;
      resolve({ ...r, ms: Math.round(performance.now() - started) });
    };
    const req = request(url, {
      method: 'PATCH',
      headers: {
        'X-API-Key': apiKey,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': heads.reduce((n, h) => n + h.length, 0) + files * size + tail.length,
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => done({ status: res.statusCode, body }));
      res.on('error', (e) => done({ status: res.statusCode, body, error: e.message }));
    });
    req.on('error', (e) => setTimeout(() => done({ status: undefined, body: '', error: e.message }), 50));
    let file = 0;
    let sent = 0;
    const pump = (): void => {
      while (file < files) {
        if (req.destroyed) return;
        if (sent === 0 && !req.write(heads[file]!)) {
          sent = -1; // the head is out; the bytes follow after the drain
          req.once('drain', pump);
          return;
        }
        if (sent < 0) sent = 0;
        while (sent < size) {
          if (req.destroyed) return;
          const n = Math.min(chunk.length, size - sent);
          sent += n;
          if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
            req.once('drain', pump);
            return;
          }
        }
        file += 1;
        sent = 0;
      }
      req.end(tail);
    };
    pump();
  });
}
