import { SourceError } from '../../../shared/source-errors.js';
import { coreTitle, OfficePackage } from '../office/office-package.js';
import type { ExtractionWarning, RawExtraction } from '../types.js';
import { attrOf, path } from '../office/ordered-xml.js';
import { escapeText } from '../common/escape-markdown.js';
import { blocksToMarkdown, readSlide } from './slide-markdown.js';

/** Limits of one deck's extraction. */
export interface PptxOptions {
  /** Refuse (`too_complex`) when the parts declare more than this many bytes unpacked. Default 256 MiB. */
  maxUnpackedBytes?: number;
  /** Stop adding slides once the Markdown is this long (the caller cuts it exactly). */
  maxTextChars: number;
}

const OFFICE_DOCUMENT = /\/officeDocument$/;
const NOTES_SLIDE = /\/notesSlide$/;
// `r:id` of each `p:sldId`, read from the raw XML: the parser folds `id` and `r:id` into one name.
const SLIDE_ID = /<(?:\w+:)?sldId\b[^>]*?\s\w+:id="([^"]+)"/g;

/**
 * Extracts a PPTX: one `## Slide N: <title>` section per slide in
 * `presentation.xml` order, body text with bullets as nested lists, tables
 * as GFM tables, SmartArt text as a list, and the speaker notes under
 * `### Notes`. Hidden slides are kept and marked `(hidden)`. The ZIP gets the
 * DOCX bomb checks and no XML part with a DOCTYPE is parsed; linked
 * (external) parts are never followed.
 */
export async function extractPptx(bytes: Uint8Array, opts: PptxOptions): Promise<RawExtraction> {
  const pkg = await OfficePackage.open(bytes, 'PPTX', opts.maxUnpackedBytes);
  const presentation = [...pkg.relationships('').values()].find((r) => OFFICE_DOCUMENT.test(r.type))?.target ?? 'ppt/presentation.xml';
  const xml = pkg.text(presentation);
  if (xml === undefined) throw new SourceError('corrupt', 'The PPTX has no presentation part: it is damaged or not a slide deck.');
  if (/<!DOCTYPE/i.test(xml)) throw new SourceError('corrupt', 'The PPTX presentation part declares a DOCTYPE, which office files never do; it is not read.');
  const rels = pkg.relationships(presentation);
  const slideParts = [...xml.matchAll(SLIDE_ID)].map((m) => rels.get(m[1]!)?.target).filter((t): t is string => t !== undefined && pkg.has(t));

  const sections: string[] = [];
  let length = 0;
  let left = 0;
  slideParts.forEach((part, i) => {
    if (length > opts.maxTextChars) {
      left += 1;
      return;
    }
    const tree = pkg.orderedXml(part) ?? [];
    const hidden = attrOf(path(tree, 'sld'), 'show') === '0';
    const slide = readSlide(pkg, part, tree);
    const heading = `## Slide ${i + 1}${hidden ? ' (hidden)' : ''}${slide.title ? `: ${escapeText(slide.title)}` : ''}`;
    const body = blocksToMarkdown(slide.blocks);
    const notes = readNotes(pkg, part);
    const section = [heading, body, notes ? `### Notes\n\n${notes}` : ''].filter(Boolean).join('\n\n');
    sections.push(section);
    length += section.length + 2;
  });
  const title = coreTitle(pkg);
  const warnings: ExtractionWarning[] = left > 0 ? [{ code: 'partial_text', message: `The last ${left} slides were not read: the deck's text is longer than the limit.` }] : [];
  return { markdown: sections.join('\n\n'), ...(title ? { title } : {}), ...(left > 0 ? { truncated: true, warnings } : {}) };
}

function readNotes(pkg: OfficePackage, slidePart: string): string {
  const notesPart = [...pkg.relationships(slidePart).values()].find((r) => NOTES_SLIDE.test(r.type))?.target;
  if (!notesPart || !pkg.has(notesPart)) return '';
  const notes = readSlide(pkg, notesPart, pkg.orderedXml(notesPart) ?? []);
  // A notes page also holds the slide image and the page number; only the body placeholder's text is the speaker's.
  return blocksToMarkdown(notes.blocks.map((b) => (b.kind === 'table' ? b : { kind: 'para' as const, text: b.text })).filter((b) => !/^\d+$/.test(b.text)));
}

