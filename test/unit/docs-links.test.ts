import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The anchor GitHub gives a heading: lower case, inline Markdown reduced to its
 * text, every character that is not a letter, digit, space, '-' or '_' dropped,
 * spaces turned to '-'.
 */
function githubSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Lines outside fenced code blocks, with inline code spans emptied of links' look-alikes. */
function proseLines(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence === undefined) lines.push(line);
  }
  return lines;
}

/** Every anchor a Markdown file's headings give, numbered as GitHub numbers repeats. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The relative link targets of a Markdown file (no scheme, not inside code). */
function relativeLinks(markdown: string): string[] {
  const links: string[] = [];
  for (const line of proseLines(markdown)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target);
    }
  }
  return links;
}

/** What is wrong with each relative link of `file` (a path under the repository), if anything. */
function brokenLinks(file: string): string[] {
  const markdown = readFileSync(join(root, file), 'utf8');
  const broken: string[] = [];
  for (const link of relativeLinks(markdown)) {
    const [path = '', anchor] = link.split('#', 2);
    const target = path === '' ? join(root, file) : resolve(dirname(join(root, file)), decodeURIComponent(path));
    if (relative(root, target).startsWith('..')) {
      broken.push(`${link}: outside the repository`);
      continue;
    }
    if (!existsSync(target)) {
      broken.push(`${link}: no such file`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(target).isDirectory() || !target.endsWith('.md')) {
      broken.push(`${link}: an anchor into a file that is not Markdown`);
      continue;
    }
    if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${link}: no heading gives #${anchor}`);
  }
  return broken;
}

const documents = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('links in README.md and docs/', () => {
  it.each(documents)('every relative link and anchor of %s resolves', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it.each(documents)('%s cites no team file that is kept outside the repository', (file) => {
    const markdown = readFileSync(join(root, file), 'utf8');
    expect(markdown.match(/\b(THREATS|CONTRACT|STYLE)\.md\b/g) ?? []).toEqual([]);
  });

  it('makes anchors as GitHub does', () => {
    expect(githubSlug('OpenAPI document, typed client and CLI')).toBe('openapi-document-typed-client-and-cli');
    expect(githubSlug('Safe retries: Idempotency-Key, If-Match and no duplicates')).toBe('safe-retries-idempotency-key-if-match-and-no-duplicates');
    expect(githubSlug('Change feed: bytes and scripts (2026-11-28)')).toBe('change-feed-bytes-and-scripts-2026-11-28');
    expect(githubSlug('`CHUNK_MAX_TOKENS` and [links](x.md)')).toBe('chunk_max_tokens-and-links');
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n### B.\n')]).toEqual(['a', 'a-1', 'b']);
  });

  it('finds the relative links and only them', () => {
    const links = relativeLinks('[a](docs/api.md#search) [b](https://x.example/) `[c](no.md)`\n```\n[d](no.md)\n```\n[e](#quotas)');
    expect(links).toEqual(['docs/api.md#search', '#quotas']);
  });
});
