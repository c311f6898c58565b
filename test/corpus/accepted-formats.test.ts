/**
 * The office, e-book and CSV folders of the corpus under a policy that
 * accepts every format (`ACCEPTED_FORMATS=all`), as EXPECTED.md says: every
 * file `ready` except the listed `bad/` ones, every sheet and slide a
 * heading, notes under their slides, tzdata's comments not rows. Extraction
 * runs in process: the sandbox's limits are covered by the unit bomb tests.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { detectType } from '../../shared/formats/detect-type.js';
import { parseAcceptedFormats } from '../../shared/formats/format-policy.js';
import { extractText, type Extraction } from '../../worker/extractors/index.js';
import { corpusDir, corpusPresent } from './corpus-files.js';
import { recallPrecision } from './word-bags.js';

const root = corpusDir();
const present = corpusPresent(root) && existsSync(join(root, 'xlsx'));
const all = parseAcceptedFormats('all');
const ACCEPTED = 'formats' in all ? all.formats : [];
const OPTS = { maxTextChars: 5_000_000, maxPdfPages: 2000, acceptedFormats: ACCEPTED };

/** EXPECTED.md's exceptions for these folders; every other file ends `ready`. */
const OUTCOMES: Record<string, string[]> = {
  'xlsx/poi-49609.xlsx': ['ready', 'failed/corrupt'],
  'bad/xlsx-encrypted-passtika.xlsx': ['failed/encrypted'],
  'bad/odt-encrypted-tika.odt': ['failed/encrypted'],
  'bad/xlsx-hostile-xmlbomb.xlsx': ['failed/corrupt', 'ready'],
  'bad/xlsx-hostile-shared-strings-amplification.xlsx': ['ready', 'failed/corrupt'],
  'bad/pptx-truncated-divino-revelado.pptx': ['failed/corrupt', 'failed/unsupported_media_type'],
  'bad/pptx-fuzzed-clusterfuzz.pptx': ['failed/corrupt', 'failed/unsupported_media_type'],
};

const inputs = present
  ? [
    ...['csv', 'xlsx', 'pptx', 'odf', 'epub'].flatMap((folder) => readdirSync(join(root, folder)).filter((n) => !n.endsWith('-csv')).sort().map((n) => `${folder}/${n}`)),
    ...Object.keys(OUTCOMES).filter((rel) => rel.startsWith('bad/')),
  ]
  : [];
const results = new Map<string, { outcome: string; extraction?: Extraction }>();
const markdownOf = (rel: string) => results.get(rel)?.extraction?.markdown ?? '';

if (!present) console.warn(`accepted-formats corpus tests skipped: no corpus with office folders at ${root} (set CORPUS_DIR)`);
const suite = present ? describe : describe.skip;
suite(present ? `corpus under ACCEPTED_FORMATS=all (${inputs.length} files)` : 'corpus under ACCEPTED_FORMATS=all: SKIPPED, no corpus', () => {
  beforeAll(async () => {
    for (const rel of inputs) {
      const bytes = readFileSync(join(root, rel));
      const name = rel.split('/')[1]!;
      try {
        results.set(rel, { outcome: 'ready', extraction: await extractText(bytes, { ...OPTS, filename: name }) });
      } catch (err) {
        results.set(rel, { outcome: `failed/${(err as { code?: string }).code ?? 'internal'}` });
      }
    }
  }, 10 * 60_000);

  it.each(inputs)('%s ends as EXPECTED.md says', (rel) => {
    expect(OUTCOMES[rel] ?? ['ready']).toContain(results.get(rel)?.outcome);
  });

  it('accepts every office and e-book upload by content', async () => {
    for (const rel of inputs.filter((r) => !r.startsWith('bad/') && !r.startsWith('csv/'))) {
      const bytes = readFileSync(join(root, rel));
      expect((await detectType(bytes.subarray(0, 1024 * 1024), { filename: rel }, bytes.length <= 1024 * 1024, ACCEPTED)).ok, rel).toBe(true);
    }
  });

  it('gives every sheet of the spreadsheets a heading, in workbook order', () => {
    for (const folder of ['xlsx', 'odf']) {
      for (const ref of readdirSync(join(root, 'reference', folder)).filter((n) => n.endsWith('.soffice-csv'))) {
        const rel = `${folder}/${ref.replace(/\.soffice-csv$/, '')}${folder === 'odf' ? '.ods' : existsSync(join(root, folder, ref.replace(/\.soffice-csv$/, '.xlsm'))) ? '.xlsm' : '.xlsx'}`;
        const names = readFileSync(join(root, 'reference', folder, ref, 'sheets.txt'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t')[1]!);
        const headings = markdownOf(rel).split('\n').filter((l) => l.startsWith('## ')).map((l) => l.slice(3).replace(/ \(hidden\)$/, ''));
        expect(headings, rel).toEqual(names.map((n) => n.replace(/\s+/g, ' ').trim()));
      }
    }
  });

  it('gives every slide a heading, marks hidden slides and puts notes under their slide', () => {
    for (const ref of readdirSync(join(root, 'reference/pptx')).filter((n) => n.endsWith('.slides.txt'))) {
      const rel = `pptx/${ref.replace(/\.slides\.txt$/, '.pptx')}`;
      const slides = readFileSync(join(root, 'reference/pptx', ref), 'utf8').match(/^=== slide \d+( \(hidden\))?/gm) ?? [];
      const headings = markdownOf(rel).match(/^## Slide \d+( \(hidden\))?/gm) ?? [];
      expect(headings, rel).toEqual(slides.map((s) => s.replace('=== slide', '## Slide')));
    }
    const refactor = markdownOf('pptx/poi-ca.ubc.cs.people_emhill_HowWeRefactor.pptx');
    expect(refactor.indexOf('Turn off skype/email/sound')).toBeGreaterThan(refactor.indexOf('## Slide 1'));
    expect(refactor.indexOf('Turn off skype/email/sound')).toBeLessThan(refactor.indexOf('## Slide 2'));
  });

  it('finds SmartArt text that is not in the slide XML', () => {
    expect(markdownOf('pptx/poi-smartart-simple.pptx')).toMatch(/^- abc$/m);
  });

  it('reads tzdata-zone.tsv as a tab-separated table without its # lines, and distro-info as a table', () => {
    const tz = markdownOf('csv/tzdata-zone.tsv');
    expect(tz).toContain('| AD | +4230+00131 | Europe/Andorra |');
    expect(tz).not.toMatch(/^\| #/m);
    expect(markdownOf('csv/distro-info-ubuntu.csv')).toMatch(/^\| version \| codename \|/);
  });

  it('gives both Alice EPUBs the same title and nearly the same text', () => {
    const [a, b] = [results.get('epub/node-epub-alice.epub')?.extraction, results.get('epub/node-epub-alice-calibre.epub')?.extraction];
    expect(a?.title).toBe(b?.title);
    expect(recallPrecision(a?.text ?? '', b?.text ?? '').recall).toBeGreaterThan(0.97);
  });
});
