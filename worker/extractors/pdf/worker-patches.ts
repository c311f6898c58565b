/**
 * Exact replacements in the source of pdf.js's worker side (the half that
 * parses; `pdfjs-dist/legacy/build/pdf.worker.mjs` of pdfjs-dist 5.4.296):
 * most make text extraction cheaper while leaving what it extracts the same,
 * the others say what a font or its text is where pdf.js as shipped does not
 * (each says which it is). Each `find` must occur exactly once in the installed file, and
 * takes in the code around the change that its correctness depends on, so a
 * pdf.js release that changes that code no longer matches: then no patch is
 * applied and pdf.js runs as shipped (see `worker-source.ts`), and
 * `test/unit/pdfjs-worker-patches.test.ts` fails until the list is brought up
 * to date.
 */
export interface WorkerPatch {
  /** What the patch does, for the tests and the logs. */
  name: string;
  find: string;
  replace: string;
}

// The text state of getTextContent, as pdf.js 5.4.296 declares it: every field the text
// layer ever sets on a state is set by this constructor (getTextContent assigns no other).
const TEXT_STATE_FIELDS = `class TextState {
  constructor() {
    this.ctm = new Float32Array(IDENTITY_MATRIX);
    this.fontName = null;
    this.fontSize = 0;
    this.loadedName = null;
    this.font = null;
    this.fontMatrix = FONT_IDENTITY_MATRIX;
    this.textMatrix = IDENTITY_MATRIX.slice();
    this.textLineMatrix = IDENTITY_MATRIX.slice();
    this.charSpacing = 0;
    this.wordSpacing = 0;
    this.leading = 0;
    this.textHScale = 1;
    this.textRise = 0;
  }`;

const TEXT_STATE_CLONE = `  clone() {
    const clone = Object.create(this);
    clone.textMatrix = this.textMatrix.slice();
    clone.textLineMatrix = this.textLineMatrix.slice();
    clone.fontMatrix = this.fontMatrix.slice();
    return clone;
  }
}
class EvalState {`;

/**
 * A text state saved by `q` is cloned with `Object.create(this)`: the copy
 * reads every field it has not set through the saved state, its prototype.
 * In documents that nest `q` deeply (TikZ/PGF drawings, maps) each clone is
 * an object with a prototype of its own, so V8 turns every saved state into a
 * prototype (a costly map change), and every read of the current state's font
 * size, matrices or font in the per-glyph code walks a chain of such
 * prototypes through megamorphic inline caches: a third of the CPU time of
 * such a PDF. The copy below has the same fields with the same values, flat:
 * a saved state is never changed while a copy of it is the current one
 * (`Q` only swaps the current state back), so reading a field through the
 * prototype or from a copy taken at `q` gives the same value.
 */
const flatTextStateClone: WorkerPatch = {
  name: 'getTextContent: a text state saved by q is copied flat, not chained by prototype',
  find: TEXT_STATE_CLONE,
  replace: `  clone() {
    const clone = new TextState();
    clone.ctm = this.ctm;
    clone.fontName = this.fontName;
    clone.fontSize = this.fontSize;
    clone.loadedName = this.loadedName;
    clone.font = this.font;
    clone.fontMatrix = this.fontMatrix.slice();
    clone.textMatrix = this.textMatrix.slice();
    clone.textLineMatrix = this.textLineMatrix.slice();
    clone.charSpacing = this.charSpacing;
    clone.wordSpacing = this.wordSpacing;
    clone.leading = this.leading;
    clone.textHScale = this.textHScale;
    clone.textRise = this.textRise;
    return clone;
  }
}
class EvalState {`,
};

/**
 * getTextContent asks for the current text rendering matrix twice per glyph
 * (to compare with the last position, and to keep it as the last position),
 * and each time built three arrays: the text space matrix and two products
 * through `Util.transform`. The replacement builds only the result, with the
 * same products and sums in the same order (zero terms included, so NaN and
 * signed zeros come out as before): the same numbers, bit for bit.
 */
const textTransformWithoutTemporaries: WorkerPatch = {
  name: 'getTextContent: the text rendering matrix computed without temporary arrays',
  find: `    function getCurrentTextTransform() {
      const font = textState.font;
      const tsm = [textState.fontSize * textState.textHScale, 0, 0, textState.fontSize, 0, textState.textRise];
      if (font.isType3Font && (textState.fontSize <= 1 || font.isCharBBox) && !isArrayEqual(textState.fontMatrix, FONT_IDENTITY_MATRIX)) {
        const glyphHeight = font.bbox[3] - font.bbox[1];
        if (glyphHeight > 0) {
          tsm[3] *= glyphHeight * textState.fontMatrix[3];
        }
      }
      return Util.transform(textState.ctm, Util.transform(textState.textMatrix, tsm));
    }`,
  replace: `    function currentTextTransformInto(out) {
      const font = textState.font;
      const s0 = textState.fontSize * textState.textHScale;
      let s3 = textState.fontSize;
      const s5 = textState.textRise;
      if (font.isType3Font && (textState.fontSize <= 1 || font.isCharBBox) && !isArrayEqual(textState.fontMatrix, FONT_IDENTITY_MATRIX)) {
        const glyphHeight = font.bbox[3] - font.bbox[1];
        if (glyphHeight > 0) {
          s3 *= glyphHeight * textState.fontMatrix[3];
        }
      }
      const m = textState.textMatrix;
      const t0 = m[0] * s0 + m[2] * 0, t1 = m[1] * s0 + m[3] * 0, t2 = m[0] * 0 + m[2] * s3, t3 = m[1] * 0 + m[3] * s3, t4 = m[0] * 0 + m[2] * s5 + m[4], t5 = m[1] * 0 + m[3] * s5 + m[5];
      const c = textState.ctm;
      out[0] = c[0] * t0 + c[2] * t1;
      out[1] = c[1] * t0 + c[3] * t1;
      out[2] = c[0] * t2 + c[2] * t3;
      out[3] = c[1] * t2 + c[3] * t3;
      out[4] = c[0] * t4 + c[2] * t5 + c[4];
      out[5] = c[1] * t4 + c[3] * t5 + c[5];
      return out;
    }
    function getCurrentTextTransform() {
      return currentTextTransformInto([0, 0, 0, 0, 0, 0]);
    }
    const comparedTransform = [0, 0, 0, 0, 0, 0];`,
};

/**
 * compareWithLastPosition, called for every glyph, only reads the current
 * text rendering matrix (its position, and its rotation when the text is
 * turned): it is computed into one array kept for this, not a new one per
 * glyph. The matrix a text item keeps (`prevTransform`, `transform`) is still
 * a new array each time.
 */
const comparedTransformReused: WorkerPatch = {
  name: 'getTextContent: the matrix compared with the last position is computed into a reused array',
  find: `    function compareWithLastPosition(glyphWidth) {
      const currentTransform = getCurrentTextTransform();`,
  replace: `    function compareWithLastPosition(glyphWidth) {
      const currentTransform = currentTextTransformInto(comparedTransform);`,
};

/**
 * getTextContent names a font in its items only by the id pdf.js loaded it
 * under ("g_d0_f4"), and describes it in `styles` by its CSS fallback family
 * alone; the font's own name ("ABCDEF+CMBX12", "Times-Bold") reached the
 * client only with a page's painting list (glyph paths and images built, as
 * costly as reading the page's text). The style below also carries the name
 * and the bold and black flags pdf.js sets on a standard font it stands in
 * for, so every page tells its bold fonts for nothing (see `fonts.ts`).
 * The style is set once per font per call, as before; the added fields are
 * strings and booleans, cloned with the rest.
 */
const STYLE_OF_FONT = `      if (!seenStyles.has(loadedName)) {
        seenStyles.add(loadedName);
        textContent.styles[loadedName] = {
          fontFamily: font.fallbackName,
          ascent: font.ascent,
          descent: font.descent,
          vertical: font.vertical`;
const fontNamesInStyles: WorkerPatch = {
  name: "getTextContent: a text style carries its font's name and bold flags",
  find: `${STYLE_OF_FONT}
        };`,
  replace: `${STYLE_OF_FONT},
          name: font.name,
          bold: font.bold,
          black: font.black
        };`,
};

/**
 * A simple font whose dictionary has a ToUnicode map gets from pdf.js
 * nothing else for its codes: the encoding built into its embedded program
 * (a TeX font's, with no `/Encoding` in the PDF) is read only when there is
 * no map, so a map naming two ligatures leaves every other ligature and the
 * em dash to the standard encoding's letters or to nothing ("de ned",
 * "maximum ow", "|"). As poppler does, the built-in encoding's glyph names
 * now fill the codes the map leaves out; a code the map names keeps its
 * entry, and one the dictionary's own encoding names is still left to that
 * encoding (pdf.js fills those after, from `fallbackToUnicode`).
 */
const ADJUST_TYPE1_HEAD = `function adjustType1ToUnicode(properties, builtInEncoding) {
  if (properties.isInternalFont) {
    return;
  }`;
const ADJUST_TYPE1_BODY = `  if (builtInEncoding === properties.defaultEncoding) {
    return;
  }
  if (properties.toUnicode instanceof IdentityToUnicodeMap) {
    return;
  }
  const toUnicode = [],
    glyphsUnicodeMap = getGlyphsUnicode();`;
const ADJUST_TYPE1_LOOP = `  for (const charCode in builtInEncoding) {
    if (properties.hasEncoding) {`;
const builtInEncodingBesideToUnicode: WorkerPatch = {
  name: "fonts: a partial ToUnicode map's missing codes are read by the font's built-in encoding",
  find: `${ADJUST_TYPE1_HEAD}
  if (properties.hasIncludedToUnicodeMap) {
    return;
  }
${ADJUST_TYPE1_BODY}
${ADJUST_TYPE1_LOOP}`,
  replace: `${ADJUST_TYPE1_HEAD}
${ADJUST_TYPE1_BODY}
${ADJUST_TYPE1_LOOP.split('\n')[0]}
    if (properties.hasIncludedToUnicodeMap && properties.toUnicode.has(charCode)) {
      continue;
    }
${ADJUST_TYPE1_LOOP.split('\n')[1]}`,
};

// pdf.js's table of the bidirectional types of Latin-1 characters: none is R, AL or AN.
const BIDI_BASE_TYPES = `const baseTypes = ["BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "S", "B", "S", "WS", "B", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "B", "B", "B", "S", "WS", "ON", "ON", "ET", "ET", "ET", "ON", "ON", "ON", "ON", "ON", "ES", "CS", "ES", "CS", "CS", "EN", "EN", "EN", "EN", "EN", "EN", "EN", "EN", "EN", "EN", "CS", "ON", "ON", "ON", "ON", "ON", "ON", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "ON", "ON", "ON", "ON", "ON", "ON", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "ON", "ON", "ON", "ON", "BN", "BN", "BN", "BN", "BN", "BN", "B", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "BN", "CS", "ON", "ET", "ET", "ET", "ET", "ON", "ON", "ON", "ON", "L", "ON", "ON", "BN", "ON", "ON", "ET", "ET", "EN", "EN", "ON", "L", "ON", "ON", "ON", "EN", "L", "ON", "ON", "ON", "ON", "ON", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "ON", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L", "ON", "L", "L", "L", "L", "L", "L", "L", "L"];`;
const BIDI_HEAD = `function bidi(str, startLevel = -1, vertical = false) {
  let isLTR = true;
  const strLength = str.length;
  if (strLength === 0 || vertical) {
    return createBidiText(str, isLTR, vertical);
  }
`;
const BIDI_TYPES = `  chars.length = strLength;
  types.length = strLength;
  let numBidi = 0;
  let i, ii;
  for (i = 0; i < strLength; ++i) {
    chars[i] = str.charAt(i);
    const charCode = str.charCodeAt(i);
    let charType = "L";
    if (charCode <= 0x00ff) {
      charType = baseTypes[charCode];
    } else if (0x0590 <= charCode && charCode <= 0x05f4) {
      charType = "R";
    } else if (0x0600 <= charCode && charCode <= 0x06ff) {
      charType = arabicTypes[charCode & 0xff];
      if (!charType) {
        warn("Bidi: invalid Unicode character " + charCode.toString(16));
      }
    } else if (0x0700 <= charCode && charCode <= 0x08ac || 0xfb50 <= charCode && charCode <= 0xfdff || 0xfe70 <= charCode && charCode <= 0xfeff) {
      charType = "AL";
    }
    if (charType === "R" || charType === "AL" || charType === "AN") {
      numBidi++;
    }
    types[i] = charType;
  }
  if (numBidi === 0) {
    isLTR = true;
    return createBidiText(str, isLTR);
  }`;

/**
 * Every text item goes through `bidi`, which fills two scratch arrays with
 * the item's characters and their bidirectional types and, when none is
 * right-to-left (R, AL, AN: the Hebrew and Arabic blocks it looks at), gives
 * the text back unchanged as left to right. Only characters in those blocks
 * can be R, AL or AN (Latin-1 cannot: the table above is matched too), so a
 * text without any of them takes that answer straight away: the same result,
 * without the two arrays written per character.
 */
const bidiLeftToRightAtOnce: WorkerPatch = {
  name: 'bidi: a text with no character of the right-to-left blocks is left to right at once',
  find: `${BIDI_HEAD}${BIDI_TYPES}`,
  replace: `${BIDI_HEAD}  if (!/[\\u0590-\\u08ac\\ufb50-\\ufdff\\ufe70-\\ufeff]/.test(str)) {
    return createBidiText(str, isLTR);
  }
${BIDI_TYPES}`,
};

// The start of FlateStream's decoder of one block (its error helper is matched with it, so it is pdf.js 5.4's decoder).
const FLATE_READ_BLOCK = `  #endsStreamOnError(err) {
    info(err);
    this.eof = true;
  }
  readBlock() {
    let buffer, hdr, len;
    const str = this.str;
`;

/**
 * The name under which the worker side's source is handed Node's
 * `zlib.inflateRawSync` (see `worker-source.ts`).
 */
export const INFLATE_RAW_PARAMETER = '__pdfInflateRaw';
// A stream whose inflated bytes would pass this is left to pdf.js, which inflates as it is read.
export const NATIVE_INFLATE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * pdf.js inflates Flate streams (content streams, object streams, fonts) in
 * JavaScript, a block at a time as they are read: a tenth of the CPU time of a
 * long text PDF. Before its first block, a FlateStream over plain bytes (not
 * a decrypting or other decoding stream) now has them inflated by zlib at
 * once (raw DEFLATE after the two header bytes pdf.js has checked; pdf.js
 * does not check the trailing Adler-32 either). Valid DEFLATE data inflates
 * to the same bytes either way. zlib refuses what pdf.js might read
 * differently (a truncated stream, bad code lengths, a distance too far
 * back, a stored block with a bad length) and output past
 * NATIVE_INFLATE_MAX_BYTES: then nothing is consumed and pdf.js decodes the
 * stream as before. The bytes are copied into an array of their own, as pdf.js
 * may transfer a stream's buffer.
 */
const nativeInflate: WorkerPatch = {
  name: 'FlateStream: zlib inflates a whole stream of plain bytes at once, pdf.js the rest',
  find: FLATE_READ_BLOCK,
  replace: `${FLATE_READ_BLOCK}    if (!this.inflateTried) {
      this.inflateTried = true;
      if (this.bufferLength === 0 && this.codeSize === 0 && !this.eof && str instanceof Stream) {
        const start = str.pos;
        const input = str.getBytes();
        let inflated = null;
        try {
          inflated = ${INFLATE_RAW_PARAMETER}(input, { maxOutputLength: ${NATIVE_INFLATE_MAX_BYTES} });
        } catch {
          inflated = null;
        }
        if (inflated) {
          buffer = new Uint8Array(inflated.length);
          buffer.set(inflated);
          this.buffer = buffer;
          this.bufferLength = inflated.length;
          this.eof = true;
          return;
        }
        str.pos = start;
      }
    }
`,
};

const CHARS_TO_GLYPHS_HEAD = `  charsToGlyphs(chars) {
    let glyphs = this._charsCache[chars];
    if (glyphs) {
      return glyphs;
    }
    glyphs = [];`;
const CHARS_TO_GLYPHS_TAIL = `    return this._charsCache[chars] = glyphs;
  }`;

/**
 * A font kept every string ever shown in it as a key of one object
 * (`_charsCache`), with the array of its glyphs: in a long document nearly
 * every string is new, so each look-up hashed a fresh string into a table of
 * hundreds of thousands of keys (a third of the time of reading glyphs) and
 * every array stayed alive to the end. The glyphs of a string are read again
 * instead: each comes from the font's per-code cache (`_glyphCache`), as
 * before, and `_charToGlyph` gives the same glyph for a code however often it
 * is asked; callers only read the array.
 */
const glyphsWithoutStringCache: WorkerPatch[] = [
  {
    name: 'charsToGlyphs: the glyphs of a string are not cached by the string (the head)',
    find: CHARS_TO_GLYPHS_HEAD,
    replace: `  charsToGlyphs(chars) {
    const glyphs = [];`,
  },
  { name: 'charsToGlyphs: the glyphs of a string are not cached by the string (the end)', find: CHARS_TO_GLYPHS_TAIL, replace: `    return glyphs;
  }` },
];

/**
 * pdf.js puts one space into an item for any gap between glyphs from a
 * tenth of an em to 0.6 em, so in a letter-spaced line the gaps between
 * letters and those between words come out alike ("r e a d t h e"), and
 * the words cannot be told apart afterwards. Each such space now has its
 * gap recorded, in em, in the order of the spaces (-1 for a space the PDF
 * drew as a character), in one array written over from item to item; an item with
 * a space every third character or more often (single letters between
 * spaces) carries a copy as `gaps`. The text is the same, and the layout
 * joins letters by their gaps (see `runs.ts`).
 */
const FAKE_SPACE_IN_FLOW = `        if (textContentItem.initialized) {
          resetLastChars();
          textContentItem.str.push(" ");
          intersector?.addExtraChar(" ");
        }
        return false;`;
const SPACE_BEFORE_GLYPH = `        if (saveLastChar(glyphUnicode)) {
          textChunk.str.push(" ");
          intersector?.addExtraChar(" ");
        }`;
const ITEM_OUT = `      return {
        str: bidiResult.str,
        dir: bidiResult.dir,
        width: Math.abs(textChunk.totalWidth),
        height: Math.abs(textChunk.totalHeight),
        transform: textChunk.transform,
        fontName: textChunk.fontName,
        hasEOL: textChunk.hasEOL
      };
    }`;
const ITEM_FLUSHED = `      textContent.items.push(runBidiTransform(textContentItem));
      textContentItem.initialized = false;
      textContentItem.str.length = 0;`;
const ITEM_STATE_END = `      fontName: null,
      hasEOL: false
    };
    const twoLastChars = [" ", " "];`;
const gapsOfSpaces: WorkerPatch[] = [
  {
    // Declared with the item's other fields, so the item keeps one shape (set later, it would slow every access);
    // the array is written over from item to item, its count set back, not its length (which would free it).
    name: 'getTextContent: the item being built has an array for the gaps of its spaces',
    find: ITEM_STATE_END,
    replace: `      fontName: null,
      hasEOL: false,
      gaps: [],
      gapCount: 0
    };
    const twoLastChars = [" ", " "];`,
  },
  {
    name: 'getTextContent: the gap of a space put between glyphs is recorded (in flow)',
    find: FAKE_SPACE_IN_FLOW,
    replace: `        if (textContentItem.initialized) {
          resetLastChars();
          textContentItem.str.push(" ");
          textContentItem.gaps[textContentItem.gapCount++] = Math.abs(width) / textContentItem.spaceInFlowMax * SPACE_IN_FLOW_MAX_FACTOR;
          intersector?.addExtraChar(" ");
        }
        return false;`,
  },
  {
    name: 'getTextContent: a space drawn as a character is recorded as such',
    find: SPACE_BEFORE_GLYPH,
    replace: `        if (saveLastChar(glyphUnicode)) {
          textChunk.str.push(" ");
          textChunk.gaps[textChunk.gapCount++] = -1;
          intersector?.addExtraChar(" ");
        }`,
  },
  {
    name: 'getTextContent: an item with a space every third character or more often carries the gaps of its spaces',
    find: ITEM_OUT,
    replace: `      const item = {
        str: bidiResult.str,
        dir: bidiResult.dir,
        width: Math.abs(textChunk.totalWidth),
        height: Math.abs(textChunk.totalHeight),
        transform: textChunk.transform,
        fontName: textChunk.fontName,
        hasEOL: textChunk.hasEOL
      };
      if (textChunk.gapCount > 0 && textChunk.gapCount * 3 >= textChunk.str.length) {
        item.gaps = textChunk.gaps.slice(0, textChunk.gapCount);
      }
      return item;
    }`,
  },
  {
    name: 'getTextContent: the gaps start again with the next item',
    find: ITEM_FLUSHED,
    replace: `${ITEM_FLUSHED}
      textContentItem.gapCount = 0;`,
  },
];

/** The patches, applied in this order. */
export const WORKER_PATCHES: readonly WorkerPatch[] = [
  // The constructor is matched (unchanged) so that a new field in a later release stops the flat copy.
  { name: 'TextState declares the fields the flat copy copies', find: TEXT_STATE_FIELDS, replace: TEXT_STATE_FIELDS },
  flatTextStateClone,
  textTransformWithoutTemporaries,
  comparedTransformReused,
  fontNamesInStyles,
  builtInEncodingBesideToUnicode,
  // The table is matched (unchanged) so that a release where Latin-1 has right-to-left types stops the shortcut.
  { name: 'bidi: Latin-1 has no right-to-left type', find: BIDI_BASE_TYPES, replace: BIDI_BASE_TYPES },
  bidiLeftToRightAtOnce,
  nativeInflate,
  ...glyphsWithoutStringCache,
  ...gapsOfSpaces,
];
