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

/** Shows `value` as format `code` would; `date1904` for workbooks counting from 1904. */
export function formatNumber(value: number, code: string, date1904 = false): string {
  // The first section is for positive numbers (and all, when it is the only one).
  const section = code.split(';')[value < 0 && code.includes(';') ? 1 : 0] ?? code;
  const bare = section.replace(/"[^"]*"|\\.|\[[^\]]*\]|_.|\*./g, '');
  if (/^general$/i.test(bare.trim()) || bare.trim() === '' || bare.trim() === '@') return general(value);
  if (/[dmyhs]/i.test(bare) && !/[0#?]/.test(bare.replace(/\.0+/g, ''))) return formatDate(value, withLiterals(section), date1904);
  const percent = bare.includes('%');
  const shown = percent ? value * 100 : value;
  const decimals = /\.([0#?]+)/.exec(bare)?.[1]?.length ?? 0;
  if (/E\+/i.test(bare)) return shown.toExponential(decimals).toUpperCase().replace(/E\+?(-?)(\d)$/, 'E+$10$2');
  // A negative section of its own shows the magnitude, in parentheses when it has them.
  const ownNegative = value < 0 && code.includes(';');
  let text = toFixedHalfUp(ownNegative ? Math.abs(shown) : shown, decimals);
  if (/[0#],[0#]/.test(bare)) text = withThousands(text);
  if (percent) text = `${text}%`;
  if (!ownNegative) return text;
  return bare.includes('(') ? `(${text})` : `-${text}`;
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
