import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../shared/runtime/config.js';
import { detectType } from '../../shared/formats/detect-type.js';
import { parseAcceptedFormats, refusalMessage, unsupportedTypeMessage } from '../../shared/formats/format-policy.js';
import { DEFAULT_ACCEPTED_FORMATS } from '../../shared/formats/formats.js';
import { xlsxLike } from '../fixtures/docx.js';
import { buildZip } from '../fixtures/zip.js';

const CONTRACT_415 = 'Uploaded file type is not supported. Allowed: PDF, TXT, HTML, Markdown, DOCX.';
const csv = Buffer.from('name,age,city\nAda,36,London\nAlan,41,Wilmslow\n');
const pptxLike = () => buildZip([
  { name: '[Content_Types].xml', data: '<Types><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>' },
  { name: 'ppt/presentation.xml', data: '<p:presentation/>' },
]);

describe('ACCEPTED_FORMATS', () => {
  it('defaults to the contract five, whose 415 message is the contract one byte for byte', () => {
    expect(loadConfig({}).ACCEPTED_FORMATS).toEqual([...DEFAULT_ACCEPTED_FORMATS]);
    expect(unsupportedTypeMessage()).toBe(CONTRACT_415);
    expect(unsupportedTypeMessage(['docx', 'markdown', 'html', 'txt', 'pdf'])).toBe(CONTRACT_415);
    expect(refusalMessage(DEFAULT_ACCEPTED_FORMATS)).toBeUndefined();
  });

  it('takes all, or a list with aliases, and prints it in the contract order and wording', () => {
    const all = loadConfig({ ACCEPTED_FORMATS: 'all' }).ACCEPTED_FORMATS;
    expect(unsupportedTypeMessage(all)).toBe('Uploaded file type is not supported. Allowed: PDF, TXT, HTML, Markdown, DOCX, PPTX, XLSX, ODS, CSV, EPUB, ODT, PNG, JPEG, TIFF, WebP.');
    const list = loadConfig({ ACCEPTED_FORMATS: ' xlsx, PDF ,docx,tsv,md' }).ACCEPTED_FORMATS;
    expect(list).toEqual(['pdf', 'markdown', 'docx', 'xlsx', 'csv']);
    expect(refusalMessage(list)).toBe('Uploaded file type is not supported. Allowed: PDF, Markdown, DOCX, XLSX, CSV.');
  });

  it('stops start-up with the unknown names listed', () => {
    expect(() => loadConfig({ ACCEPTED_FORMATS: 'pdf,doc,keynote' })).toThrow(ConfigError);
    expect(() => loadConfig({ ACCEPTED_FORMATS: 'pdf,doc,keynote' })).toThrow(/ACCEPTED_FORMATS: unknown format "doc", "keynote"/);
    expect(parseAcceptedFormats(' , ')).toEqual({ error: 'must name at least one format, or be "all"' });
  });
});

describe('detectType under a policy', () => {
  it('refuses office formats at the default with the words used before the policy', async () => {
    expect(await detectType(xlsxLike(), {}, true)).toEqual({ ok: false, message: 'The file is a .xlsx file, not a Word document.' });
    expect(await detectType(pptxLike(), {}, true)).toMatchObject({ ok: false });
  });

  it('accepts what the deployment names, by content', async () => {
    const accepted = parseAcceptedFormats('pdf,docx,xlsx,pptx,csv');
    if (!('formats' in accepted)) throw new Error('policy');
    expect(await detectType(xlsxLike(), { filename: 'a.docx' }, true, accepted.formats)).toMatchObject({ ok: true, format: 'xlsx' });
    expect(await detectType(pptxLike(), {}, true, accepted.formats)).toMatchObject({ ok: true, format: 'pptx' });
    expect(await detectType(xlsxLike(), {}, true, ['pdf'])).toEqual({ ok: false, message: 'The file is a .xlsx file, which this service does not accept.' });
  });

  it('reads a .csv as TXT at the default and as CSV when csv is accepted', async () => {
    expect(await detectType(csv, { filename: 'people.csv' }, true)).toMatchObject({ ok: true, format: 'txt', mimeType: 'text/plain' });
    expect(await detectType(csv, { filename: 'people.csv' }, true, ['txt', 'csv'])).toMatchObject({ ok: true, format: 'csv', mimeType: 'text/csv' });
    expect(await detectType(csv, { declaredType: 'text/tab-separated-values' }, true, ['csv'])).toMatchObject({ format: 'csv' });
    expect(await detectType(csv, { filename: 'people.txt' }, true, ['txt', 'csv'])).toMatchObject({ format: 'txt' });
  });

  it('reads a workbook whose part names use backslashes as XLSX', async () => {
    const zip = buildZip([{ name: 'xl\\workbook.xml', data: '<workbook/>' }, { name: '[Content_Types].xml', data: '<Types/>' }]);
    expect(await detectType(zip, {}, true, ['xlsx'])).toMatchObject({ ok: true, format: 'xlsx' });
  });
});
