/** Dot leaders of tables of contents ("Introduction ........ 3"). */

const LEADER = /(?:\. ?){4,}|(?:… ?){2,}|(?:[·・] ?){4,}/u;
// Checked on every line: the cheap test for the characters comes first.
export const hasLeader = (text: string) => /\. ?\.|…|[·・]/u.test(text) && LEADER.test(text);

/** "Introduction ........ 3" → "Introduction 3". */
export function collapseLeaders(text: string): string {
  if (!hasLeader(text)) return text;
  return text.replace(new RegExp(`[ \\t]*(?:${LEADER.source})[ \\t]*`, 'gu'), ' ').trim();
}
