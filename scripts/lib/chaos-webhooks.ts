import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { FinalSource } from './chaos-check.js';

/** What a chaos run's webhook receiver was told: each event's deliveries, by event id. */
export interface ChaosReceiver {
  url: string;
  /** Event id to its type, documentId and how many times it was delivered. */
  events: Map<string, { type: string; documentId: string | undefined; deliveries: number }>;
  close(): Promise<void>;
}

/** A loopback receiver that answers 204 to every delivery and counts them by `webhook-id`. */
export async function startChaosReceiver(): Promise<ChaosReceiver> {
  const events: ChaosReceiver['events'] = new Map();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; type: string; data?: { documentId?: string } };
        const seen = events.get(body.id);
        if (seen) seen.deliveries += 1;
        else events.set(body.id, { type: body.type, documentId: body.data?.documentId, deliveries: 1 });
      } catch {
        // Not an event: counted nowhere, answered all the same.
      }
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/events`, events, close: () => new Promise((r) => server.close(() => r())) };
}

/** How the ends of a run's sources reached the receiver. Ids are written `kbId/documentId`. */
export interface WebhookVerdict {
  /** Ended sources whose source.ready / source.failed never arrived. */
  lost: string[];
  /** Ended sources told of under more than one event id (a second event for one end). */
  doubled: string[];
  /** Deliveries of an event past its first (at least once: the same id again, never a new event). */
  redeliveries: number;
}

/** Holds the receiver's events against the sources' final state. */
export function checkWebhooks(final: ReadonlyMap<string, readonly FinalSource[] | undefined>, receiver: ChaosReceiver): WebhookVerdict {
  const byDocument = new Map<string, { type: string; ids: Set<string> }[]>();
  let redeliveries = 0;
  for (const [id, e] of receiver.events) {
    redeliveries += e.deliveries - 1;
    if (!e.documentId || (e.type !== 'source.ready' && e.type !== 'source.failed')) continue;
    const list = byDocument.get(e.documentId) ?? [];
    const same = list.find((l) => l.type === e.type);
    if (same) same.ids.add(id);
    else list.push({ type: e.type, ids: new Set([id]) });
    byDocument.set(e.documentId, list);
  }
  const lost: string[] = [];
  const doubled: string[] = [];
  for (const [kbId, sources] of final) {
    for (const s of sources ?? []) {
      if (s.status !== 'ready' && s.status !== 'failed') continue;
      const told = byDocument.get(s.documentId)?.find((l) => l.type === `source.${s.status}`);
      if (!told) lost.push(`${kbId}/${s.documentId}`);
      else if (told.ids.size > 1) doubled.push(`${kbId}/${s.documentId}`);
    }
  }
  return { lost, doubled, redeliveries };
}
