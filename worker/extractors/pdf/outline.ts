import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** One entry of a PDF's outline (its bookmarks), resolved to the page it points at. */
export interface OutlineEntry {
  title: string;
  /** Markdown heading level: the entry's depth in the outline plus one, at most 6. */
  level: number;
  /** 1-based page the entry's destination is on. */
  page: number;
  /** Top of the destination on that page in page space, when the destination says. */
  top?: number;
}

// Outlines of real manuals hold a few thousand entries at most; more is not worth resolving.
const MAX_ENTRIES = 10_000;

type RawItem = { title: string; dest: string | unknown[] | null; items?: RawItem[] };

/**
 * Reads the outline pdf.js finds in `doc` and resolves each entry's
 * destination (named or explicit) to a page and, for `XYZ` and `FitH`
 * destinations, a top. Entries pointing at no page (URLs, broken
 * references) and entries past `maxPage` are left out. A PDF without an
 * outline, or one that cannot be read, gives an empty list.
 */
export async function readOutline(doc: PDFDocumentProxy, maxPage: number): Promise<OutlineEntry[]> {
  const root = (await doc.getOutline().catch(() => null)) as RawItem[] | null;
  if (!root?.length) return [];
  const flat: Array<{ item: RawItem; depth: number }> = [];
  const walk = (items: RawItem[], depth: number) => {
    for (const item of items) {
      if (flat.length >= MAX_ENTRIES) return;
      flat.push({ item, depth });
      if (item.items?.length) walk(item.items, depth + 1);
    }
  };
  walk(root, 0);
  const entries: OutlineEntry[] = [];
  // Each look-up is a round trip to pdf.js's worker: each name the outline uses is looked up once (all at
  // once, not in turn), and pages once per page. pdf.js finds a name in the document's name tree by a
  // binary search, and only for a name it does not find there reads every destination of the document
  // (tens of thousands in a hyperref manual), which is what asking for all of them would always do.
  const names = [...new Set(flat.flatMap(({ item }) => (typeof item.dest === 'string' ? [item.dest] : [])))];
  const named = new Map(await Promise.all(names.map(async (name) => [name, await doc.getDestination(name).catch(() => null)] as const)));
  const pages = new Map<string, Promise<number>>();
  const pageIndex = (ref: unknown): Promise<number> => {
    if (typeof ref === 'number') return Promise.resolve(ref);
    const { num, gen } = ref as { num: number; gen: number };
    const id = `${num}R${gen}`;
    if (!pages.has(id)) pages.set(id, doc.getPageIndex(ref as Parameters<PDFDocumentProxy['getPageIndex']>[0]));
    return pages.get(id)!;
  };
  for (const { item, depth } of flat) {
    const title = item.title.replace(/\s+/g, ' ').trim();
    const dest = typeof item.dest === 'string' ? (named.get(item.dest) ?? null) : item.dest;
    const target = await resolve(dest, pageIndex);
    if (!title || !target || target.page > maxPage) continue;
    entries.push({ title, level: Math.min(6, depth + 1), ...target });
  }
  return entries;
}

async function resolve(explicit: unknown[] | null, pageIndex: (ref: unknown) => Promise<number>): Promise<{ page: number; top?: number } | undefined> {
  try {
    if (!Array.isArray(explicit) || explicit.length === 0) return undefined;
    const [ref, kind] = explicit as [unknown, { name?: string } | undefined];
    const index = await pageIndex(ref);
    const top = kind?.name === 'XYZ' ? explicit[3] : kind?.name === 'FitH' || kind?.name === 'FitBH' ? explicit[2] : undefined;
    return { page: index + 1, ...(typeof top === 'number' ? { top } : {}) };
  } catch {
    // A destination naming no page is skipped like an entry without one.
    return undefined;
  }
}
