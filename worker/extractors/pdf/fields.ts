/** A pdf.js annotation, as far as form fields go. */
export interface PdfAnnotation {
  subtype?: string;
  fieldType?: string;
  fieldName?: string;
  fieldValue?: unknown;
  alternativeText?: string;
  checkBox?: boolean;
  radioButton?: boolean;
  pushButton?: boolean;
  exportValue?: string;
  buttonValue?: string;
}

/**
 * "Field name: value" for each filled form field of a page (AcroForm widget
 * annotations), named by their tooltip when they have one. A field drawn by
 * several widgets is listed once; empty fields, unchecked boxes and buttons
 * are left out.
 */
export function formFieldLines(annotations: PdfAnnotation[]): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const a of annotations) {
    if (a.subtype !== 'Widget' || a.pushButton) continue;
    const value = fieldValue(a);
    if (value === undefined) continue;
    const name = (a.alternativeText?.trim() || shortName(a.fieldName) || 'Field').replace(/\s+/g, ' ');
    const key = a.fieldName ?? name;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`${name}: ${value}`);
  }
  return lines;
}

function fieldValue(a: PdfAnnotation): string | undefined {
  const raw = a.fieldValue;
  if (a.checkBox) return raw !== undefined && raw !== 'Off' && raw === a.exportValue ? 'Yes' : undefined;
  if (a.radioButton) return raw !== undefined && raw !== 'Off' && raw === a.buttonValue ? String(raw) : undefined;
  const text = Array.isArray(raw) ? raw.map(String).join(', ') : typeof raw === 'string' ? raw : undefined;
  const clean = text?.replace(/\s+/g, ' ').trim();
  return clean ? clean : undefined;
}

/** "form[0].Page1[0].name[0]" → "name": the last part of a field's full name. */
function shortName(full: string | undefined): string | undefined {
  return full?.split('.').map((part) => part.replace(/\[\d+\]$/, '').trim()).filter(Boolean).at(-1);
}
