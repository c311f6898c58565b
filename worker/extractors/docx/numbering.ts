interface LevelDef {
  start: number;
  bullet: boolean;
}

interface NumDef {
  abstractId: string;
  starts: Map<number, number>;
}

/**
 * The numbers Word shows for the numbered paragraphs of `document.xml`, in
 * document order (`undefined` for bullets): counters per abstract list and
 * level, deeper levels restarting under a new parent item, and a list
 * instance's `startOverride` restarting its levels the first time it is used.
 * mammoth numbers every list from 1, so "restarted at 10" and "carrying on
 * at 12" would otherwise be lost. Only direct paragraph numbering is read
 * (not numbering that comes from a paragraph style).
 */
export function listNumbers(documentXml: string, numberingXml: string): Array<number | undefined> {
  const abstracts = new Map<string, Map<number, LevelDef>>();
  for (const m of numberingXml.matchAll(/<w:abstractNum\b[^>]*w:abstractNumId="([^"]+)"[^>]*>([\s\S]*?)<\/w:abstractNum>/g)) {
    const levels = new Map<number, LevelDef>();
    for (const lvl of m[2]!.matchAll(/<w:lvl\b[^>]*w:ilvl="(\d+)"[^>]*>([\s\S]*?)<\/w:lvl>/g)) {
      levels.set(Number(lvl[1]), { start: Number(/<w:start w:val="(-?\d+)"/.exec(lvl[2]!)?.[1] ?? 1), bullet: /<w:numFmt w:val="(?:bullet|none)"/.test(lvl[2]!) });
    }
    abstracts.set(m[1]!, levels);
  }
  const nums = new Map<string, NumDef>();
  for (const m of numberingXml.matchAll(/<w:num\b[^>]*w:numId="([^"]+)"[^>]*>([\s\S]*?)<\/w:num>/g)) {
    const abstractId = /<w:abstractNumId w:val="([^"]+)"/.exec(m[2]!)?.[1];
    if (abstractId === undefined) continue;
    const starts = new Map<number, number>();
    for (const o of m[2]!.matchAll(/<w:lvlOverride\b[^>]*w:ilvl="(\d+)"[^>]*>([\s\S]*?)<\/w:lvlOverride>/g)) {
      const start = /<w:startOverride w:val="(-?\d+)"/.exec(o[2]!)?.[1];
      if (start !== undefined) starts.set(Number(o[1]), Number(start));
    }
    nums.set(m[1]!, { abstractId, starts });
  }

  // Tracked formatting changes and the fallback copy of text boxes repeat paragraph properties.
  const body = documentXml.replace(/<w:pPrChange\b[\s\S]*?<\/w:pPrChange>|<mc:Fallback\b[\s\S]*?<\/mc:Fallback>/g, '');
  const counters = new Map<string, number[]>();
  const used = new Set<string>();
  const numbers: Array<number | undefined> = [];
  for (const m of body.matchAll(/<w:numPr>([\s\S]*?)<\/w:numPr>/g)) {
    const numId = /<w:numId w:val="([^"]+)"/.exec(m[1]!)?.[1];
    const ilvl = Number(/<w:ilvl w:val="(\d+)"/.exec(m[1]!)?.[1] ?? 0);
    const num = numId === undefined ? undefined : nums.get(numId);
    if (!num || numId === '0') continue;
    const levels = abstracts.get(num.abstractId);
    const counter = counters.get(num.abstractId) ?? [];
    counters.set(num.abstractId, counter);
    if (!used.has(numId!)) {
      used.add(numId!);
      for (const [level, start] of num.starts) counter[level] = start - 1;
    }
    const def = levels?.get(ilvl);
    counter[ilvl] = (counter[ilvl] ?? (num.starts.get(ilvl) ?? def?.start ?? 1) - 1) + 1;
    counter.length = ilvl + 1;
    numbers.push(def?.bullet ? undefined : counter[ilvl]);
  }
  return numbers;
}
