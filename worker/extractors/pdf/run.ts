/** A text item in its own frame: x along the line, y across it (upwards). */
export interface Run {
  str: string;
  x0: number;
  x1: number;
  y: number;
  size: number;
  rtl: boolean;
  /** Letters pdf.js read apart ("t r e a t") and joined here: the line is letter-spaced. */
  letterSpaced?: boolean;
  bold?: boolean;
}
