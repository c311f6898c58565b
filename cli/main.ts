#!/usr/bin/env node
/**
 * `kb-ingest`: push folders of documents to the service and follow them.
 * Configured by KB_INGEST_URL (default http://127.0.0.1:3000) and
 * KB_INGEST_API_KEY; tables and progress go to stdout, problems to stderr.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createKbClient } from '../clients/typescript/src/index.js';
import { createProgress, failureTable, summaryLine, sourceLine } from './progress.js';
import { push } from './push.js';
import { search } from './search.js';
import { addSite } from './sites.js';
import { BytesSent, countingFetch, unreachableMessage } from './transport.js';
import { watch } from './watch.js';

/** Each command's synopsis and what it does, for `--help`. */
const COMMANDS: Record<string, string> = {
  push: `push <dir|files...> (--kb KBID | --name NAME) [--no-wait] [--batch-files N] [--batch-mb N]
      upload files in batches (safe to run again: nothing is added twice), showing the bytes
      sent, then show progress until every source settles and list the failures with their
      codes; empty files are not sent and are listed`,
  status: `status KBID
      the knowledge base's sources and their status`,
  chunks: `chunks KBID DOCID [--page N] [--size N]
      a ready document's chunks`,
  wait: `wait KBID
      show progress until every source settles`,
  search: `search KBID "QUESTION" [--top N] [--json]
      the chunks that best match, best first: score, document, heading path and the
      text around the match (--json: the service's answer as it is)`,
  sites: `sites add KBID URL [--max-pages N] [--max-depth N] [--sitemap auto|only|off] [--no-wait]
      add a site: its same-site pages become URL sources; shows the pages found and added
      until its discovery ends`,
  watch: `watch KBID [--after CURSOR] [--cursor-file FILE] [--once] [--json] [--interval S]
      follow the knowledge base's change feed and print each chunk event; starts from
      now unless given a cursor (--cursor-file keeps it after every page, to resume);
      when the cursor is older than the feed keeps, prints resync and every chunk`,
  help: `help [COMMAND]
      show this text, or one command's (also --help, -h)`,
};

const ENVIRONMENT = `environment: KB_INGEST_URL (default http://127.0.0.1:3000), KB_INGEST_API_KEY (required)`;

const EXIT_CODES = `exit codes:
  0  done (and every source ready, for push and wait)
  1  the service answered with an error, or a source failed or a file was refused
  2  usage error: a wrong command or option, KB_INGEST_API_KEY not set, nothing to push
  3  the service could not be reached (not running, wrong KB_INGEST_URL, connection lost)`;

const USAGE = `usage: kb-ingest <command> [options]

commands:
${Object.values(COMMANDS).map((c) => `  ${c}`).join('\n')}

${ENVIRONMENT}

${EXIT_CODES}`;

/** One command's help: its synopsis and text, the environment and the exit codes. */
function commandHelp(command: string): string {
  return `usage: kb-ingest ${COMMANDS[command]}\n\n${ENVIRONMENT}\n\n${EXIT_CODES}`;
}

/** Exit codes, as documented in the help. */
export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3 } as const;

/** The service's per-request limits by default (MAX_SOURCES_PER_REQUEST 100, MAX_REQUEST_BYTES 100 MiB). */
const DEFAULT_BATCH_FILES = 50;
const DEFAULT_BATCH_MB = 90;

/**
 * Runs one command and returns its exit code; every error is reported on
 * stderr here and becomes a code (see `EXIT_CODES`).
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const baseUrl = env.KB_INGEST_URL ?? 'http://127.0.0.1:3000';
  try {
    return await run(argv, env, baseUrl);
  } catch (err) {
    const unreachable = unreachableMessage(err, baseUrl);
    if (unreachable) {
      process.stderr.write(`kb-ingest: ${unreachable}\n`);
      return EXIT.unreachable;
    }
    process.stderr.write(`kb-ingest: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failed;
  }
}

const OPTIONS = {
  help: { type: 'boolean', short: 'h', default: false },
  kb: { type: 'string' },
  name: { type: 'string' },
  'no-wait': { type: 'boolean', default: false },
  'batch-files': { type: 'string' },
  'batch-mb': { type: 'string' },
  page: { type: 'string' },
  size: { type: 'string' },
  after: { type: 'string' },
  'cursor-file': { type: 'string' },
  once: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  interval: { type: 'string' },
  top: { type: 'string' },
  'max-pages': { type: 'string' },
  'max-depth': { type: 'string' },
  sitemap: { type: 'string' },
} as const;

async function run(argv: string[], env: NodeJS.ProcessEnv, baseUrl: string): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (command === 'help' || values.help) {
    const about = command === 'help' ? args[0] : command;
    if (about !== undefined && !COMMANDS[about]) return usage(`unknown command ${about}`);
    process.stdout.write(`${about && about !== 'help' ? commandHelp(about) : USAGE}\n`);
    return EXIT.ok;
  }
  if (!command) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.usage;
  }
  if (!COMMANDS[command]) return usage(`unknown command ${command}`);
  const apiKey = env.KB_INGEST_API_KEY;
  if (!apiKey) {
    process.stderr.write('KB_INGEST_API_KEY is not set: make a key with `npm run admin -- create-key --workspace <id>`\n');
    return EXIT.usage;
  }
  const sent = new BytesSent();
  const client = createKbClient({ baseUrl, apiKey, fetch: countingFetch(sent) });
  const out = process.stdout;
  switch (command) {
    case 'push': {
      const target = values.kb ? { kbId: values.kb } : values.name ? { name: values.name } : undefined;
      if (!target || args.length === 0) return usage('push needs files or folders and --kb or --name');
      const limits = { maxFiles: Number(values['batch-files'] ?? DEFAULT_BATCH_FILES), maxBytes: Number(values['batch-mb'] ?? DEFAULT_BATCH_MB) * 1024 * 1024 };
      if (!(limits.maxFiles >= 1 && limits.maxBytes >= 1)) return usage('--batch-files and --batch-mb must be positive numbers');
      return push(client, { target, paths: args, limits, wait: !values['no-wait'], out, err: process.stderr, sent });
    }
    case 'status': {
      if (!args[0]) return usage('status needs a knowledge base id');
      const kb = await client.getKnowledgeBase(args[0]);
      out.write(`${summaryLine(kb)}\n${kb.files.map(sourceLine).join('\n')}\n`);
      const failures = failureTable(kb);
      if (failures) out.write(`\n${failures}\n`);
      return 0;
    }
    case 'chunks': {
      if (!args[0] || !args[1]) return usage('chunks needs a knowledge base id and a document id');
      const page = await client.chunks(args[0], args[1], Number(values.page ?? 0), Number(values.size ?? 20));
      for (const c of page.data) out.write(`--- chunk ${c.index} (${c.tokens} tokens) ${c.headings.join(' > ')}\n${c.text}\n`);
      out.write(`page ${page.page + 1} of ${page.totalPages} (${page.totalCount} chunks)\n`);
      return 0;
    }
    case 'wait': {
      if (!args[0]) return usage('wait needs a knowledge base id');
      const progress = createProgress(out);
      const kb = await client.waitUntilSettled(args[0], { onPoll: (k) => progress.update(k), maxDelayMs: 2_000 });
      const failures = failureTable(kb);
      if (failures) out.write(`\n${failures}\n`);
      return kb.sourceCounts.failed > 0 ? EXIT.failed : EXIT.ok;
    }
    case 'search': {
      if (!args[0] || !args[1]) return usage('search needs a knowledge base id and a question');
      const top = values.top === undefined ? undefined : Number(values.top);
      if (top !== undefined && !(Number.isInteger(top) && top >= 1 && top <= 100)) return usage('--top must be a whole number from 1 to 100');
      return search(client, { kbId: args[0], query: args.slice(1).join(' '), ...(top !== undefined && { top }), json: values.json, out });
    }
    case 'sites': {
      if (args[0] !== 'add' || !args[1] || !args[2]) return usage('sites add needs a knowledge base id and a URL: kb-ingest sites add KBID URL');
      const maxPages = wholeNumber(values['max-pages']);
      const maxDepth = wholeNumber(values['max-depth']);
      if (maxPages === null || maxDepth === null) return usage('--max-pages and --max-depth must be whole numbers');
      const sitemap = values.sitemap;
      if (sitemap !== undefined && sitemap !== 'auto' && sitemap !== 'only' && sitemap !== 'off') return usage('--sitemap must be auto, only or off');
      const interval = Number(values.interval ?? 1);
      if (!(interval > 0)) return usage('--interval must be a positive number of seconds');
      return addSite(client, {
        kbId: args[1],
        url: args[2],
        ...(maxPages !== undefined && { maxPages }),
        ...(maxDepth !== undefined && { maxDepth }),
        ...(sitemap !== undefined && { sitemap }),
        wait: !values['no-wait'],
        intervalMs: interval * 1000,
        out,
        err: process.stderr,
      });
    }
    case 'watch': {
      if (!args[0]) return usage('watch needs a knowledge base id');
      const interval = Number(values.interval ?? 2);
      if (!(interval > 0)) return usage('--interval must be a positive number of seconds');
      // Ctrl-C ends the watch at the cursor reached, which is printed and kept.
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
      try {
        return await watch(client, {
          kbId: args[0],
          ...(values.after !== undefined && { after: values.after }),
          ...(values['cursor-file'] !== undefined && { cursorFile: values['cursor-file'] }),
          once: values.once,
          json: values.json,
          intervalMs: interval * 1000,
          out,
          err: process.stderr,
          signal: stop.signal,
        });
      } finally {
        process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      }
    }
    default:
      return usage(`unknown command ${command}`);
  }
}

/** An option's whole number; undefined when not given, null when not a whole number. */
function wholeNumber(raw: string | undefined): number | undefined | null {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : null;
}

function usage(problem: string): number {
  process.stderr.write(`kb-ingest: ${problem}\n(kb-ingest --help lists the commands and options)\n`);
  return EXIT.usage;
}

// Run as a program (also through the npm bin link), not when imported by a test.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
