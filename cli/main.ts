#!/usr/bin/env node
/**
 * `kb-ingest`: push folders of documents to the service and follow them.
 * Configured by KB_INGEST_URL (default http://127.0.0.1:3000) and
 * KB_INGEST_API_KEY; tables and progress go to stdout, problems to stderr.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { KbApiError, createKbClient } from '../clients/typescript/src/index.js';
import { createProgress, failureTable, summaryLine, sourceLine } from './progress.js';
import { push } from './push.js';
import { watch } from './watch.js';

const USAGE = `usage: kb-ingest <command>

commands:
  push <dir|files...> (--kb KBID | --name NAME) [--no-wait] [--batch-files N] [--batch-mb N]
      upload files in batches (safe to run again: nothing is added twice), then show
      progress until every source settles and list the failures with their codes
  status KBID            the knowledge base's sources and their status
  chunks KBID DOCID      a ready document's chunks (--page N --size N)
  wait KBID              show progress until every source settles
  watch KBID [--after CURSOR] [--cursor-file FILE] [--once] [--json] [--interval S]
      follow the knowledge base's change feed and print each chunk event; starts from
      now unless given a cursor (--cursor-file keeps it after every page, to resume);
      when the cursor is older than the feed keeps, prints resync and every chunk
  help                   show this text

environment: KB_INGEST_URL (default http://127.0.0.1:3000), KB_INGEST_API_KEY (required)`;

/** The service's per-request limits by default (MAX_SOURCES_PER_REQUEST 100, MAX_REQUEST_BYTES 100 MiB). */
const DEFAULT_BATCH_FILES = 50;
const DEFAULT_BATCH_MB = 90;

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
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
    },
  });
  const [command, ...args] = positionals;
  if (!command || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  const apiKey = env.KB_INGEST_API_KEY;
  if (!apiKey) {
    process.stderr.write('KB_INGEST_API_KEY is not set: make a key with `npm run admin -- create-key --workspace <id>`\n');
    return 2;
  }
  const client = createKbClient({ baseUrl: env.KB_INGEST_URL ?? 'http://127.0.0.1:3000', apiKey });
  const out = process.stdout;
  switch (command) {
    case 'push': {
      const target = values.kb ? { kbId: values.kb } : values.name ? { name: values.name } : undefined;
      if (!target || args.length === 0) return usage('push needs files or folders and --kb or --name');
      const limits = { maxFiles: Number(values['batch-files'] ?? DEFAULT_BATCH_FILES), maxBytes: Number(values['batch-mb'] ?? DEFAULT_BATCH_MB) * 1024 * 1024 };
      if (!(limits.maxFiles >= 1 && limits.maxBytes >= 1)) return usage('--batch-files and --batch-mb must be positive numbers');
      return push(client, { target, paths: args, limits, wait: !values['no-wait'], out, err: process.stderr });
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
      return 0;
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

function usage(problem: string): number {
  process.stderr.write(`kb-ingest: ${problem}\n\n${USAGE}\n`);
  return 2;
}

// Run as a program (also through the npm bin link), not when imported by a test.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`kb-ingest: ${err instanceof KbApiError ? err.message : err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
