import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type RunningWorker } from '../../worker/main.js';
import { loggableUrl, sourceLogFields } from '../../worker/jobs/source-log.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { capturingLogger } from '../helpers/log-capture.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, waitForDocument, type DocumentBody } from '../helpers/worker-harness.js';

interface Line {
  level: number;
  msg: string;
  documentId?: string;
  result?: string;
  code?: string;
  type?: string;
  name?: string;
}

const INFO = 30;
const WARN = 40;
const TEXT_SECRET = 'The vault code is 7741-SECRET-TEXT';
const URL_TOKEN = 's3cret-query-token';

describe('worker log lines of a source\'s outcome', () => {
  let h: Harness;
  let key: string;
  let worker: RunningWorker | undefined;
  const { logger, lines } = capturingLogger('debug');
  const parsed = (): Line[] => lines.map((l) => JSON.parse(l) as Line);
  const outcome = (documentId: string): Line | undefined =>
    parsed().find((l) => l.documentId === documentId && (l.msg === 'source ready' || l.msg === 'source failed'));
  let docs: DocumentBody[] = [];

  beforeAll(async () => {
    // URL_FETCH_ALLOW_PRIVATE is unset: the loopback URL is refused before any connection (fetch_blocked).
    h = await createHarness({ JOB_ATTEMPTS: '1' });
    key = await h.key('ws_source_log');
    const { kbId, docs: ids } = await createKbWith(h, key, (f) => {
      f.append('knowledge_base_files', new Blob(['Opening hours are nine to five.\n']), 'hours.txt');
      f.append('knowledge_base_files', new Blob(['%PDF-1.7\nthis is no PDF body at all\n']), 'broken-scan.pdf');
      f.set('knowledge_base_urls', JSON.stringify([`http://127.0.0.1:1/private/report?token=${URL_TOKEN}#part`]));
      f.set('knowledge_base_texts', JSON.stringify([{ title: 'Vault notes', text: TEXT_SECRET }]));
    });
    worker = await startWorker(h.config, logger, { reconcileIntervalMs: 3_600_000 });
    docs = [];
    for (const id of ids) docs.push(await waitForDocument(h, key, kbId, id));
    await waitFor('an outcome line for every source', () => (docs.every((d) => outcome(d.documentId)) ? true : undefined), { timeoutMs: 10_000 });
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await h.close();
  });

  const doc = (pred: (d: DocumentBody) => boolean): DocumentBody => {
    const d = docs.find(pred);
    expect(d).toBeDefined();
    return d!;
  };

  it('logs a failed file at warn with result "failed", its error code, type and file name', () => {
    const pdf = doc((d) => d.type === 'file' && d.content === 'broken-scan.pdf');
    expect(pdf.status).toBe('failed');
    const line = outcome(pdf.documentId)!;
    expect(line).toMatchObject({ msg: 'source failed', level: WARN, result: 'failed', code: pdf.error!.code, type: 'file', name: 'broken-scan.pdf' });
  });

  it('logs a ready file at info with result "ready", type and file name', () => {
    const txt = doc((d) => d.type === 'file' && d.content === 'hours.txt');
    expect(txt.status).toBe('ready');
    expect(outcome(txt.documentId)).toMatchObject({ msg: 'source ready', level: INFO, result: 'ready', type: 'file', name: 'hours.txt' });
  });

  it('names a URL source by scheme, host and path: no query string, no fragment', () => {
    const url = doc((d) => d.type === 'url');
    expect(url.status).toBe('failed');
    expect(outcome(url.documentId)).toMatchObject({
      msg: 'source failed',
      level: WARN,
      result: 'failed',
      code: 'fetch_blocked',
      type: 'url',
      name: 'http://127.0.0.1:1/private/report?…',
    });
  });

  it('names a text by its title and never logs its content', () => {
    const text = doc((d) => d.type === 'text');
    expect(text.status).toBe('ready');
    // A batch's texts are told at debug, one summary line per batch at info.
    expect(outcome(text.documentId)).toMatchObject({ result: 'ready', type: 'text', name: 'Vault notes' });
  });

  it('writes no text content, query token or "result":"ok" into any line', () => {
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).not.toContain('7741-SECRET');
      expect(line).not.toContain(URL_TOKEN);
    }
    // "ok" was the store's word for "written", which read as the source's outcome.
    expect(parsed().filter((l) => l.result === 'ok')).toEqual([]);
  });
});

describe('loggableUrl and sourceLogFields', () => {
  it('drops a user name, password, query and fragment from a URL', () => {
    expect(loggableUrl('https://alice:hunter2@example.com:8443/a/b.html?sig=abc&x=1#top')).toBe('https://example.com:8443/a/b.html?…');
    expect(loggableUrl('https://example.com/docs/')).toBe('https://example.com/docs/');
    expect(loggableUrl('not a url with secret')).toBe('(unparsable URL)');
  });

  it('names a file by its file name, a text by its title only, and cuts a long name', () => {
    expect(sourceLogFields({ type: 'file', content: 'a.pdf', filename: 'a.pdf' })).toEqual({ type: 'file', name: 'a.pdf' });
    expect(sourceLogFields({ type: 'text', content: 'the text itself' })).toEqual({ type: 'text' });
    expect(sourceLogFields({ type: 'text', content: 'the text itself', title: 'T' })).toEqual({ type: 'text', name: 'T' });
    const long = sourceLogFields({ type: 'text', content: 'x', title: 'y'.repeat(1000) });
    expect(long.name!.length).toBe(300);
  });
});
