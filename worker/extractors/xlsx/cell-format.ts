/**
 * Numbers as a spreadsheet shows them, from the cell's number format: dates
 * and times, percentages, fixed decimals and thousands separators. Formats
 * this does not understand show the number as Excel's General would.
 */

// Excel's built-in formats that are not General (ECMA-376 part 1, 18.8.30).
const BUILT_IN: Record<number, string> = {
  1: '0', 2: '0.00', 3: '#,##0', 4: '#,##0.00', 9: '0%', 10: '0.00%', 11: '0.00E+00',
  14: 'yyyy-mm-dd', 15: 'd-mmm-yy', 16: 'd-mmm', 17: 'mmm-yy', 18: 'h:mm AM/PM', 19: 'h:mm:ss AM/PM',
  20: 'h:mm', 21: 'h:mm:ss', 22: 'yyyy-mm-dd h:mm', 37: '#,##0 ;(#,##0)', 38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)', 40: '#,##0.00;[Red](#,##0.00)', 45: 'mm:ss', 46: '[h]:mm:ss', 47: 'mm:ss.0', 48: '##0.0E+0', 49: '@',
};

/** The format code of a number format id: the workbook's own, else the built-in one, else General. */
export function formatCode(id: number, custom: ReadonlyMap<number, string>): string {
  return custom.get(id) ?? BUILT_IN[id] ?? 'General';
}

/** A number format made ready to apply: `date1904` for workbooks counting from 1904. */
type Formatter = (value: number, date1904: boolean) => string;

// Formats by code, so a sheet's thousands of cells in a few styles do not parse the code each time.
const COMPILED = new Map<string, Formatter>();
const MAX_COMPILED = 1000;

/**
 * Shows `value` as format `code` would; `date1904` for workbooks counting
 * from 1904. A locale tag naming a numeral system (`[$-3000401]`, the high
 * byte of its number) shows the digits in that system, see {@link nativeDigits}.
 */
export function formatNumber(value: number, code: string, date1904 = false): string {
  let format = COMPILED.get(code);
  if (!format) {
    if (COMPILED.size >= MAX_COMPILED) COMPILED.clear();
    format = compile(code);
    COMPILED.set(code, format);
  }
  return format(value, date1904);
}

function compile(code: string): Formatter {
  // The first section is for positive numbers (and all, when it is the only one), the second for negative ones.
  const sections = code.split(';');
  const positive = compileSection(sections[0] ?? code, false);
  const negative = sections.length > 1 ? compileSection(sections[1] ?? '', true) : positive;
  const digits = nativeDigits(code);
  if (!digits) return (value, date1904) => (value < 0 ? negative : positive).format(value, date1904);
  return (value, date1904) => {
    const section = value < 0 ? negative : positive;
    return toDigits(section.format(value, date1904), digits, section.kind !== 'date');
  };
}

interface Section {
  kind: 'general' | 'date' | 'number';
  format: Formatter;
}

/** One section of a format code; `ownNegative` when it is the negative section, which shows the magnitude. */
function compileSection(section: string, ownNegative: boolean): Section {
  const bare = section.replace(/"[^"]*"|\\.|\[[^\]]*\]|_.|\*./g, '');
  const trimmed = bare.trim();
  if (/^general$/i.test(trimmed) || trimmed === '' || trimmed === '@') return { kind: 'general', format: general };
  if (/[dmyhs]/i.test(bare) && !/[0#?]/.test(bare.replace(/\.0+/g, ''))) {
    const literal = withLiterals(section);
    return { kind: 'date', format: (value, date1904) => formatDate(value, literal, date1904) };
  }
  const percent = bare.includes('%');
  const decimals = /\.([0#?]+)/.exec(bare)?.[1]?.length ?? 0;
  const exponent = /E\+/i.test(bare);
  const thousands = /[0#],[0#]/.test(bare);
  const { prefix, suffix } = affixes(section);
  // A negative section shows the magnitude; its own parentheses or minus say it is negative, else a minus does.
  const signed = /[(-]/.test(prefix + suffix);
  return {
    kind: 'number',
    format: (value) => {
      const shown = percent ? value * 100 : value;
      if (exponent) return shown.toExponential(decimals).toUpperCase().replace(/E\+?(-?)(\d)$/, 'E+$10$2');
      let text = toFixedHalfUp(ownNegative ? Math.abs(shown) : shown, decimals);
      if (thousands) text = withThousands(text);
      if (percent) text = `${text}%`;
      const sign = text.startsWith('-') || (ownNegative && !signed) ? '-' : '';
      return `${sign}${prefix}${text.replace(/^-/, '')}${suffix}`;
    },
  };
}

/**
 * The literal text a number section shows before and after the number:
 * quoted text, escaped characters and the characters Excel shows as they
 * are (`$`, `(`, `)`, a space, ...), as in `"$"#,##0` or `#,##0.0" kg"`.
 * Padding (`_x`), fill (`*x`) and tags (`[Red]`) show nothing here, and
 * literals between digit placeholders are left out.
 */
function affixes(section: string): { prefix: string; suffix: string } {
  let prefix = '';
  let suffix = '';
  let digits = false;
  for (const m of section.matchAll(/"([^"]*)"|\\(.)|\[[^\]]*\]|_.|\*.|([0#?])|([.,%])|(.)/g)) {
    const literal = m[1] ?? m[2] ?? m[5];
    if (m[3] !== undefined) {
      digits = true;
      suffix = '';
    } else if (literal !== undefined) {
      if (digits) suffix += literal;
      else prefix += literal;
    }
  }
  return { prefix: prefix.trim() === '' ? '' : prefix.trimStart(), suffix: suffix.trim() === '' ? '' : suffix.trimEnd() };
}

/** A numeral system: its zero's code point, and whether numbers in it take the Arabic decimal and group separators. */
interface Digits {
  zero: number;
  arabicSeparators: boolean;
}

// Numeral systems by the high byte of a format's locale tag (`[$-xxyyzzzz]`, as Excel and LibreOffice number them).
const NUMERAL_SYSTEMS: Record<number, number> = {
  0x02: 0x0660, 0x03: 0x06f0, 0x04: 0x0966, 0x05: 0x09e6, 0x06: 0x0a66, 0x07: 0x0ae6, 0x08: 0x0b66, 0x09: 0x0be6,
  0x0a: 0x0c66, 0x0b: 0x0ce6, 0x0c: 0x0d66, 0x0d: 0x0e50, 0x0e: 0x0ed0, 0x0f: 0x0f20, 0x10: 0x1040, 0x12: 0x17e0, 0x13: 0x1810,
};

// The digits of a language of its own, by primary language id (the low 10 bits of the LCID).
const LANGUAGE_DIGITS: Record<number, number> = {
  0x01: 0x0660, 0x29: 0x06f0, 0x20: 0x06f0, 0x39: 0x0966, 0x4e: 0x0966, 0x61: 0x0966, 0x45: 0x09e6, 0x4d: 0x09e6, 0x46: 0x0a66,
  0x47: 0x0ae6, 0x48: 0x0b66, 0x49: 0x0be6, 0x4a: 0x0c66, 0x4b: 0x0ce6, 0x4c: 0x0d66, 0x1e: 0x0e50, 0x54: 0x0ed0, 0x51: 0x0f20,
  0x55: 0x1040, 0x53: 0x17e0, 0x50: 0x1810,
};

/**
 * The digits a format's locale tag asks for: a numeral system in the tag's
 * high byte (`[$-3000401]`: 03, Arabic) shows the native digits of the tag's
 * language when it has its own, as LibreOffice shows them (Arabic-Indic
 * `١٢٣` for Arabic), else the digits that byte names (`[$-D000409]`: Thai).
 * Undefined for ASCII digits: no tag, a tag without a numeral system, or an
 * unknown one.
 */
export function nativeDigits(code: string): Digits | undefined {
  const tag = /\[\$[^\]-]*-([0-9a-f]{5,8})\]/i.exec(code)?.[1];
  if (!tag) return undefined;
  const value = parseInt(tag, 16);
  const numeral = Math.floor(value / 0x1000000) & 0xff;
  if (numeral < 2 || NUMERAL_SYSTEMS[numeral] === undefined) return undefined;
  const zero = LANGUAGE_DIGITS[value & 0x3ff] ?? NUMERAL_SYSTEMS[numeral]!;
  return { zero, arabicSeparators: zero === 0x0660 || zero === 0x06f0 };
}

/** `text` with its ASCII digits in `digits`; in a number, `.` and `,` become the Arabic separators where those digits take them. */
function toDigits(text: string, digits: Digits, number: boolean): string {
  const separators = number && digits.arabicSeparators;
  return text.replace(/[0-9.,]/g, (c) => {
    if (c === '.') return separators ? '\u066b' : c;
    if (c === ',') return separators ? '\u066c' : c;
    return String.fromCharCode(digits.zero + c.charCodeAt(0) - 48);
  });
}

/**
 * `value` with `decimals` decimals, rounded as a spreadsheet rounds: to 15
 * significant digits first, then half away from zero in decimal, so 23.95
 * (stored as 23.9499999…) shows 24.0 to one decimal, not 23.9 as `toFixed` would.
 */
export function toFixedHalfUp(value: number, decimals: number): string {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21 || decimals > 20) return value.toFixed(Math.min(decimals, 100));
  const [mantissa, exponent] = Math.abs(Number(value.toPrecision(15))).toExponential().split('e');
  const scaled = Math.round(Number(`${mantissa}e${Number(exponent) + decimals}`));
  if (!(scaled < 1e21)) return value.toFixed(decimals);
  const text = Number(`${scaled}e-${decimals}`).toFixed(decimals);
  return value < 0 && Number(text) !== 0 ? `-${text}` : text;
}

/** General: up to 11 significant digits, no exponent for ordinary magnitudes, no trailing zeros. */
export function general(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  const abs = Math.abs(value);
  if (abs !== 0 && (abs >= 1e11 || abs < 1e-9)) return value.toExponential(5).replace(/\.?0+e/, 'E').replace(/E\+?(-?)(\d)$/, 'E+$10$2').toUpperCase();
  return String(Number(value.toPrecision(11)));
}

function withThousands(text: string): string {
  const [int = '', frac] = text.split('.');
  const sign = int.startsWith('-') ? '-' : '';
  const digits = sign ? int.slice(1) : int;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${grouped}${frac !== undefined ? `.${frac}` : ''}`;
}

/** A format section with its quoted and escaped literals as plain text (quotes and backslashes gone) and colour or locale tags dropped. */
function withLiterals(section: string): string {
  return section.replace(/"([^"]*)"|\\(.)|\[[^\]]*\]|_.|\*./g, (_m, quoted: string | undefined, escaped: string | undefined) => quoted ?? escaped ?? '');
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DATE_TOKEN = /yyyy|yy|mmmmm|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|am\/pm|a\/p|\.0+|[^ymdhsa.]+|./gi;

/**
 * A serial date in the order and fields its format shows (`mm/dd/yyyy`,
 * `d-mmm-yy`, `h:mm AM/PM`), in English month and day names. Built-in id 14,
 * whose look Excel takes from the reader's locale, is ISO `yyyy-mm-dd`.
 */
function formatDate(serial: number, bare: string, date1904: boolean): string {
  // Excel's day 60 is the 29 February 1900 that never was; serials after it are one day ahead.
  const days = date1904 ? serial + 1462 : serial < 60 ? serial + 1 : serial;
  const date = new Date(Math.round((days - 25569) * 86_400_000));
  if (Number.isNaN(date.getTime())) return general(serial);
  const twelve = /am\/pm|a\/p/i.test(bare);
  const tokens = bare.match(DATE_TOKEN) ?? [];
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const hours = date.getUTCHours();
  return tokens.map((token, i) => {
    const t = token.toLowerCase();
    // `m` after an hour or before seconds is minutes, elsewhere the month.
    const prev = tokens.slice(0, i).reverse().find((x) => /^[ymdhs]/i.test(x))?.toLowerCase() ?? '';
    const next = tokens.slice(i + 1).find((x) => /^[ymdhs]/i.test(x))?.toLowerCase() ?? '';
    const minutes = (t === 'm' || t === 'mm') && (prev.startsWith('h') || next.startsWith('s'));
    switch (t) {
      case 'yyyy': return String(date.getUTCFullYear());
      case 'yy': return pad(date.getUTCFullYear() % 100);
      case 'mmmmm': return MONTHS[date.getUTCMonth()]!.slice(0, 1);
      case 'mmmm': return MONTHS[date.getUTCMonth()]!;
      case 'mmm': return MONTHS[date.getUTCMonth()]!.slice(0, 3);
      case 'mm': return minutes ? pad(date.getUTCMinutes()) : pad(date.getUTCMonth() + 1);
      case 'm': return minutes ? String(date.getUTCMinutes()) : String(date.getUTCMonth() + 1);
      case 'dddd': return DAYS[date.getUTCDay()]!;
      case 'ddd': return DAYS[date.getUTCDay()]!.slice(0, 3);
      case 'dd': return pad(date.getUTCDate());
      case 'd': return String(date.getUTCDate());
      case 'hh': return pad(twelve ? hours % 12 || 12 : hours);
      case 'h': return String(twelve ? hours % 12 || 12 : hours);
      case 'ss': return pad(date.getUTCSeconds());
      case 's': return String(date.getUTCSeconds());
      case 'am/pm': return hours < 12 ? 'AM' : 'PM';
      case 'a/p': return hours < 12 ? 'A' : 'P';
      default: return t.startsWith('.0') ? `.${pad(date.getUTCMilliseconds(), 3).slice(0, t.length - 1)}` : token;
    }
  }).join('');
}
