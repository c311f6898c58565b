import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { describe, expect, it } from 'vitest';
import { chunkMarkdown } from '../../worker/chunking/chunk-markdown.js';
import { countTokens, isSpaceCode, SpanTokens } from '../../worker/chunking/tokenizer.js';

/** A small deterministic generator (Park–Miller), so a failure names its seed and repeats. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 48_271) % 2_147_483_647) / 2_147_483_647;
}

/**
 * Text whose pre-tokens depend on what follows them: a full stop joined to the line breaks
 * after it, a space taken by the next word, runs of spaces before a word, digit groups,
 * contractions, CJK, an emoji (a surrogate pair), tabs, carriage returns, and long runs of
 * one character class (letters, digits, spaces) that the counter cuts into pieces.
 */
const PARTS = [
  'word', ' word', 'Word.', '.\n\n', '|', ' | ', '\n', '\n\n', '   ', '\t', '\r\n', '12345', "don't", ' 日本語の', '。',
  '😀', '# Heading\n', '- item\n', '```\ncode\n```\n', '  indented', ',', ';', '--', '\u00a0', '\u2003', 'é',
];

function document(rnd: () => number, length: number): string {
  let out = '';
  while (out.length < length) {
    const r = rnd();
    // Runs of 256 or more are counted in pieces; one of 255 is a single pre-token (slow to encode: rare).
    if (r < 0.005) out += 'x'.repeat(256 + Math.floor(rnd() * 200));
    else if (r < 0.008) out += '7'.repeat(256 + Math.floor(rnd() * 200));
    else if (r < 0.012) out += ' '.repeat(256 + Math.floor(rnd() * 200));
    else if (r < 0.013) out += '-'.repeat(255 + Math.floor(rnd() * 2));
    else out += PARTS[Math.floor(rnd() * PARTS.length)];
  }
  return out;
}

describe('SpanTokens', () => {
  it('counts every span as countTokens counts its slice (5,000 random spans over text built to disagree)', () => {
    for (let seed = 1; seed <= 5; seed++) {
      const rnd = random(seed);
      const text = document(rnd, 6_000);
      const spans = new SpanTokens(text);
      for (let k = 0; k < 1_000; k++) {
        const start = Math.floor(rnd() * text.length);
        const end = Math.min(text.length, start + Math.floor(rnd() * (rnd() < 0.5 ? 40 : 2_000)));
        expect(spans.count(start, end), `seed ${seed}, span ${start}-${end}`).toBe(countTokens(text.slice(start, end)));
      }
    }
  });

  it('counts spans that start and end where the chunker cuts: lines, sentences and words', () => {
    const rnd = random(7);
    const text = document(rnd, 20_000);
    const spans = new SpanTokens(text);
    const cuts = [0, text.length];
    for (let i = 1; i < text.length; i++) if (/\s/.test(text[i - 1]!) && !/\s/.test(text[i]!)) cuts.push(i);
    for (let k = 0; k < 3_000; k++) {
      const a = cuts[Math.floor(rnd() * cuts.length)]!;
      const b = cuts[Math.floor(rnd() * cuts.length)]!;
      const [start, end] = [Math.min(a, b), Math.max(a, b)];
      // Trimmed, as the chunker's pieces are.
      let e = end;
      while (e > start && /\s/.test(text[e - 1]!)) e--;
      expect(spans.count(start, e), `span ${start}-${e}`).toBe(countTokens(text.slice(start, e)));
    }
  });

  it('counts spans that start in the spaces or words before a long run, or end in one', () => {
    for (const run of ['7'.repeat(300), 'x'.repeat(300), '-'.repeat(300), ' '.repeat(300)]) {
      for (const gap of [' ', '   ', '\n\n ', '. ']) {
        const text = `Some words${gap}${run}${gap}more words. End.`;
        const spans = new SpanTokens(text);
        for (let start = 0; start < text.length; start += start < 20 || start > text.length - 30 ? 1 : 37) {
          for (let end = start; end <= text.length; end += end < 20 || end > text.length - 30 ? 1 : 41) {
            expect(spans.count(start, end), `${JSON.stringify(gap)} ${run[0]} ${start}-${end}`).toBe(countTokens(text.slice(start, end)));
          }
        }
      }
    }
  });

  it('leaves the chunks of a document as counting each slice gives them', () => {
    const text = document(random(11), 30_000);
    for (const [maxTokens, overlapTokens] of [[64, 16], [512, 0]] as const) {
      for (const c of chunkMarkdown(text, { maxTokens, overlapTokens })) expect(c.tokens).toBe(countTokens(c.text));
    }
  });

  it('knows whitespace as the regular expression does, code unit by code unit', () => {
    const disagree: string[] = [];
    for (let c = 0; c <= 0xffff; c++) if (isSpaceCode(c) !== /\s/.test(String.fromCharCode(c))) disagree.push(c.toString(16));
    expect(disagree).toEqual([]);
  });
});

describe('countTokens', () => {
  it('counts as js-tiktoken encodes, on 6,000 random strings of letters, digits, CJK, emoji, lone surrogates and spaces', () => {
    const encoder = new Tiktoken(cl100k);
    const rnd = random(13);
    const wrong: string[] = [];
    const alphabet = ['a', 'b', 'e', 'th', 'ing', ' ', '\n', '1', '2', '.', ',', '日', '本', 'é', '😀', '\ud800', '\udc00', '-', '=', 'Q', 'x', '\t', 'ü', 'ß', 'я', "'s", '<|endoftext|>'];
    for (let k = 0; k < 6_000; k++) {
      let text = '';
      const length = 1 + Math.floor(rnd() * 80);
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(rnd() * alphabet.length)];
      if (countTokens(text) !== encoder.encode(text, [], []).length) wrong.push(text);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});
