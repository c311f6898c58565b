/** One line of text, in the frame where its text runs left to right and y grows upwards. */
export interface PdfLine {
  text: string;
  x0: number;
  x1: number;
  /** Baseline. */
  y: number;
  /** Font size of most of its characters. */
  size: number;
  /** Most of its letters are set in a bold font. */
  bold?: boolean;
  /** Lines of one column share a block id; a new id means the reading order jumped. */
  block: number;
  /** Pieces separated by wide gaps (table cells, tab stops); 1 for running text. */
  cells: number;
  /** The text of each of those pieces, when there are several. */
  parts?: string[];
  /** Where each of `parts` starts along the line. */
  partsX?: number[];
  /** Within the top or bottom 15% of the page, where running headers and footers are. */
  nearEdge?: boolean;
  /** Set on the lines of a heading the PDF's outline names (see `outline-headings.ts`): its level, entry index and title. */
  heading?: { level: number; entry: number; title: string };
}
