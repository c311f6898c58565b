import { deflateSync } from 'node:zlib';

/** What {@link warmUpPdf} writes; the defaults are the ones a sandbox child reads. */
export interface WarmUpPdfOptions {
  /** Pages of the document. Default {@link WARM_UP_PAGES}. */
  pages?: number;
  /** Paragraph lines of text per page. Default 40. */
  lines?: number;
  /** Small figures per page (paths, colours, graphics states and short texts in nested saved states). Default 600. */
  figures?: number;
}

/** Pages of the warm-up PDF: short ones, so a request that stops the warm-up waits for little. */
export const WARM_UP_PAGES = 10;

// Standard fonts, which pdf.js reads from its bundled Type 1 programs and converts as it
// does an embedded Type 1 font, one of them with a /Differences encoding.
const FONTS = ['Times-Roman', 'Times-Bold', 'Times-Italic', 'Helvetica', 'Courier'];
const WORDS = 'the map tiles are drawn with a mercator projection of each zoom level and scaled to fit their box on the page'.split(' ');

/**
 * A PDF built here, never read from disk, for a sandbox child to read while
 * idle so that V8 compiles pdf.js's hot paths (inflate, the content-stream
 * lexer and parser, font loading, the text layer) and the page rebuild
 * before a real document comes: text in several fonts with kerned `TJ`
 * arrays, lines of a paragraph moved by `Td` and `T*`, and many small
 * drawings in nested `q`/`Q` with `cm`, all in Flate-compressed content
 * streams; and, for the page rebuild, a running header and page number,
 * headings of two sizes, list items, two-column pages and ruled tables.
 * Its text is made up and its output is thrown away.
 */
export function warmUpPdf(opts: WarmUpPdfOptions = {}): Uint8Array {
  const pageCount = opts.pages ?? WARM_UP_PAGES;
  const lineCount = opts.lines ?? 40;
  const figureCount = opts.figures ?? 600;
  const objects: Array<string | { dict: string; data: Buffer }> = ['', ''];
  const add = (object: string | { dict: string; data: Buffer }): number => objects.push(object);
  const fontRefs = FONTS.map((name, i) => {
    const encoding = i === 0 ? '<< /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [39 /quoteright 96 /quoteleft] >>' : '/WinAnsiEncoding';
    return add(`<< /Type /Font /Subtype /Type1 /BaseFont /${name} /Encoding ${encoding} >>`);
  });
  const fontDict = fontRefs.map((ref, i) => `/F${i + 1} ${ref} 0 R`).join(' ');
  const kids: number[] = [];
  for (let page = 0; page < pageCount; page++) {
    const content = deflateSync(Buffer.from(pageContent(page, lineCount, figureCount), 'latin1'));
    const contents = add({ dict: '/Filter /FlateDecode', data: content });
    kids.push(add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595.276 841.89] /Resources << /Font << ${fontDict} >> /ExtGState << /GS1 << /ca 0.5 /CA 0.5 >> /GS2 << /ca 1 /CA 1 >> >> >> /Contents ${contents} 0 R >>`));
  }
  objects[0] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  return writeObjects(objects);
}

function pageContent(page: number, lineCount: number, figureCount: number): string {
  const ops: string[] = [];
  let seed = page + 1;
  const next = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const num = (n: number): string => (next(n * 100) / 100).toFixed(2);
  const word = (): string => WORDS[next(WORDS.length)]!;
  // A running header and page number, as a manual has them.
  ops.push(`BT /F4 8 Tf 72 815 Td (Warm-up manual, part ${1 + (page >> 2)}) Tj ET BT /F4 8 Tf 290 28 Td (${page + 1}) Tj ET`);
  ops.push(`BT /F2 14.35 Tf 72 780 Td (${page + 1} Drawing the ${word()} ${word()}) Tj ET`);
  ops.push(`BT /F2 11.96 Tf 72 760 Td (${page + 1}.1 The ${word()} ${word()}) Tj ET`);
  // Every third page sets its paragraph in two columns, every third after that adds a ruled table.
  const columns = page % 3 === 1 ? [72, 318] : [72];
  const partsPerLine = columns.length > 1 ? 3 : 8;
  for (const x of columns) {
    ops.push(`BT /F1 9.96 Tf 12 TL ${x} 740 Td`);
    for (let line = 0; line < lineCount; line++) {
      const font = line % 7 === 6 ? `/F${3 + next(3)} 9.96 Tf ` : line % 7 === 0 ? '/F1 9.96 Tf ' : '';
      const lead = line % 11 === 5 ? `(${line % 2 ? '\\267' : `${1 + (line % 9)}.`} )` : '';
      const parts = Array.from({ length: partsPerLine }, () => `(${word()} ${word()})-${next(400)}`).join(' ');
      ops.push(`${font}[${lead}${parts}(')]TJ T*`);
    }
    ops.push('ET');
  }
  if (page % 3 === 2) {
    for (let row = 0; row < 12; row++) {
      const y = 230 - row * 14;
      ops.push(`0.5 w 72 ${y - 3} m 552 ${y - 3} l S`);
      for (let col = 0; col < 4; col++) ops.push(`BT /F${col === 0 ? 2 : 1} 9 Tf ${72 + col * 120} ${y} Td (${col === 0 ? word() : (next(100_000) / 100).toFixed(2)}) Tj ET`);
    }
  }
  for (let f = 0; f < figureCount; f++) {
    const depth = 1 + (f % 3);
    for (let d = 0; d < depth; d++) ops.push(`q 1 0 0 1 ${num(8)} ${num(8)} cm`);
    ops.push(`/GS${1 + (f % 2)} gs ${num(1)} ${num(1)} ${num(1)} rg ${num(1)} G ${num(1)} g 0.4 w`);
    ops.push(`${num(500)} ${num(700)} m ${num(500)} ${num(700)} l ${num(500)} ${num(700)} ${num(500)} ${num(700)} ${num(500)} ${num(700)} c h ${f % 2 ? 'f' : 'S'}`);
    ops.push(`${num(500)} ${num(700)} ${num(40)} ${num(40)} re ${f % 3 ? 'B' : 'n'}`);
    if (f % 2 === 0) ops.push(`BT /F${1 + next(FONTS.length)} ${(4 + next(1000) / 100).toFixed(2)} Tf ${num(500)} ${num(700)} Td [(${word()})-${next(300)}(${word()})]TJ ET`);
    for (let d = 0; d < depth; d++) ops.push('Q');
  }
  return ops.join('\n');
}

/** Numbered objects (the first is the catalog) with a correct xref table and trailer. */
function writeObjects(objects: Array<string | { dict: string; data: Buffer }>): Uint8Array {
  const parts: Buffer[] = [Buffer.from('%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0]!.length;
  const push = (b: Buffer): void => {
    parts.push(b);
    length += b.length;
  };
  const offsets = objects.map((object, i) => {
    const at = length;
    if (typeof object === 'string') push(Buffer.from(`${i + 1} 0 obj\n${object}\nendobj\n`, 'latin1'));
    else {
      push(Buffer.from(`${i + 1} 0 obj\n<< ${object.dict} /Length ${object.data.length} >>\nstream\n`, 'latin1'));
      push(object.data);
      push(Buffer.from('\nendstream\nendobj\n', 'latin1'));
    }
    return at;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}
