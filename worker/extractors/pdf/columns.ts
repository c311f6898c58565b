/**
 * Column gutters of a page: bands along it that its row pieces keep clear
 * of, with lines of text ending on one side and starting on the other.
 */

/** A band along the page, between two columns. */
export interface Gutter { start: number; end: number }

/** A piece of a row: where it starts and ends along the line, and its font size. */
export interface ColumnBox { x0: number; x1: number; size: number }

/**
 * Vertical bands that text keeps clear of, with column-like text on both
 * sides: many fragments ending near the band on its left and starting near
 * it on its right, wide enough to be prose rather than table cells. A few
 * fragments (titles, figure captions) may cross a band.
 */
export function findGutters(fragments: ColumnBox[]): Gutter[] {
  const bands = gutterCandidates(fragments);
  return bands ? dropUnsupported(fragments, bands) : [];
}

/** The bands a page's gutters are chosen from, and the measures the choice needs. */
export interface GutterCandidates {
  candidates: Gutter[];
  /** The page's usual font size. */
  em: number;
  /** The most fragments over one point along the page: a full column's rows. */
  peak: number;
}

/**
 * The bands few fragments cross, at least 0.8 em wide, that do not reach
 * the page's text edges; undefined for a page with too few fragments or
 * no extent.
 */
export function gutterCandidates(fragments: ColumnBox[]): GutterCandidates | undefined {
  if (fragments.length < 10) return undefined;
  // Sizes are numbers, never NaN: a typed array sorts them as the comparator (a - b) would, only faster.
  const sizes = new Float64Array(fragments.length);
  let min = Infinity;
  let max = -Infinity;
  fragments.forEach((f, i) => {
    sizes[i] = f.size;
    min = Math.min(min, f.x0);
    max = Math.max(max, f.x1);
  });
  const em = sizes.sort()[sizes.length >> 1]!;
  const left = Math.floor(min);
  const right = Math.ceil(max);
  const width = right - left;
  if (width <= 0 || width > 20_000) return undefined;
  const delta = new Int32Array(width + 2);
  for (const f of fragments) {
    delta[Math.max(0, Math.floor(f.x0) - left)]! += 1;
    delta[Math.min(width, Math.ceil(f.x1) - left)]! -= 1;
  }
  const depths = new Int32Array(width + 1);
  let peak = 0;
  for (let x = 0, depth = 0; x <= width; x++) peak = Math.max(peak, (depths[x] = depth += delta[x]!));
  // Titles, author lists and wide figures may cross a gutter; its narrowest part is where fewest do.
  // Measured against the fullest column, not the page: three columns of short rows hold a third of them each.
  const allowance = Math.max(1, Math.floor(Math.min(fragments.length, peak) * 0.25));
  const candidates: Gutter[] = [];
  for (let x = 0; x <= width;) {
    if (depths[x]! > allowance) {
      x++;
      continue;
    }
    let end = x;
    let least = depths[x]!;
    while (end <= width && depths[end]! <= allowance) least = Math.min(least, depths[end++]!);
    // A band that reaches the page's text edge is a margin, not a gutter.
    if (x > 0 && end <= width) {
      let start = x;
      while (depths[start]! > least) start++;
      let stop = start;
      while (stop < end && depths[stop]! === least) stop++;
      if (stop - start >= 0.8 * em) candidates.push({ start: start + left, end: stop + left });
    }
    x = end;
  }
  return { candidates, em, peak };
}

/**
 * The candidates left once the weakest failing one (the first of equals) is
 * dropped, again and again, until every one left has columns on both sides.
 * A candidate's check depends only on its neighbours' bounds, so a drop
 * checks again only the two that became neighbours: a page of many narrow
 * gaps (a table of elements, a map) costs as many passes over its fragments
 * as it has candidates, not their square.
 */
export function dropUnsupported(fragments: ColumnBox[], { candidates: found, em, peak }: GutterCandidates): Gutter[] {
  const candidates = [...found];
  const minCount = Math.max(3, Math.min(fragments.length, peak) * 0.1);
  const check = (i: number): { ok: boolean; support: number } => {
    const g = candidates[i]!;
    const l = side(fragments, candidates[i - 1]?.end ?? -Infinity, g.start, 'left', em);
    const r = side(fragments, g.end, candidates[i + 1]?.start ?? Infinity, 'right', em);
    const ok = l.count >= minCount && r.count >= minCount && Math.max(l.width, r.width) >= 8 * em && Math.min(l.width, r.width) >= 3 * em;
    return { ok, support: l.count + r.count };
  };
  const checks = candidates.map((_, i) => check(i));
  for (;;) {
    let failing = -1;
    for (let i = 0; i < checks.length; i++) {
      if (!checks[i]!.ok && (failing < 0 || checks[i]!.support < checks[failing]!.support)) failing = i;
    }
    if (failing < 0) return candidates;
    candidates.splice(failing, 1);
    checks.splice(failing, 1);
    if (failing > 0) checks[failing - 1] = check(failing - 1);
    if (failing < candidates.length) checks[failing] = check(failing);
  }
}

/**
 * The fragments between two bounds that end (left side) or start (right
 * side) within 4 em of the gutter, as column lines do: how many, and their
 * median width. Figure labels and table cells elsewhere do not count.
 */
function side(fragments: ColumnBox[], from: number, to: number, which: 'left' | 'right', em: number): { count: number; width: number } {
  const widths = scratch(fragments.length);
  let count = 0;
  for (const f of fragments) {
    if (f.x0 >= from - 1 && f.x1 <= to + 1 && (which === 'left' ? to - f.x1 : f.x0 - from) < 4 * em) widths[count++] = f.x1 - f.x0;
  }
  // The widths of fragments that passed these comparisons are numbers, never NaN: sorted as by (a - b).
  return { count, width: count ? widths.subarray(0, count).sort()[count >> 1]! : 0 };
}

let widthsScratch = new Float64Array(256);

/** A reused array of at least `n` numbers. */
function scratch(n: number): Float64Array {
  if (widthsScratch.length < n) widthsScratch = new Float64Array(Math.max(n, widthsScratch.length * 2));
  return widthsScratch;
}
