import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { multipartForm, nameField, urlsField } from '../helpers/multipart-body.js';
import { call, expectErrorBody, jobsOf } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-url-sources');
});
afterAll(async () => h.close());

const post = (urls: string[]) =>
  call(h.app, 'POST', '/v1/knowledge-bases', { key, body: multipartForm([nameField('urls'), urlsField(urls)]) });

describe('URL sources refused at the API whatever URL_FETCH_ALLOW_PRIVATE says', () => {
  it.each([
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['the metadata address as NAT64', 'http://[64:ff9b::a9fe:a9fe]/'],
    ['the metadata address as IPv4-translated', 'http://[::ffff:0:a9fe:a9fe]/'],
    ['the metadata address as 6to4', 'http://[2002:a9fe:a9fe::1]/'],
    ['the metadata address as a decimal number', 'http://2852039166/'],
    ['a metadata host name', 'http://metadata.google.internal/computeMetadata/v1/'],
  ])('returns 400 naming the URL for %s', async (_label, url) => {
    const res = await post(['https://example.com/ok', url]);
    expectErrorBody(res, 400, '/v1/knowledge-bases', { fields: ['knowledge_base_urls[1]'] });
    expect(res.body.validationErrors['knowledge_base_urls[1]']).toMatch(/^must not (point at \S+ \(a cloud metadata address\)|name a cloud metadata host)/);
  });

  it('accepts loopback, internal names and service ports, which only the worker can judge', async () => {
    const res = await post(['http://127.0.0.1:8080/', 'http://localhost/', 'http://db.internal/', 'https://example.com:6379/']);
    expect(res.status, res.text).toBe(201);
    expect(await jobsOf(h, res.body.kbId)).toHaveLength(4);
  });
});
