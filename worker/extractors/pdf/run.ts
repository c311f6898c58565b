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
  /** The even gap (em) between the single letters of `str`, which the line may show to be letter spacing (see {@link evenLetterGap}). */
  letterGap?: number;
  /** `letterGap` is that of fewer than three letters ("o f", "2 . 1"), joined only beside a letter-spaced word. */
  shortSpaced?: boolean;
  bold?: boolean;
}
