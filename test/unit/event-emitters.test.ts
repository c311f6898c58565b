import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every TypeScript source file of the service (not its tests). */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) out.push(relative(ROOT, path));
    }
  };
  for (const dir of ['api', 'worker', 'shared', 'cli', 'scripts', 'bin']) {
    try {
      walk(join(ROOT, dir));
    } catch {
      // A folder this checkout lacks has nothing to check.
    }
  }
  return out;
}

/**
 * Where each way onto the delivery queue may be called from: domain events
 * come only from the outbox (the relay); a webhook's own tools (its test
 * event, a redelivery asked for by hand) queue one delivery to that webhook.
 */
const ALLOWED: Record<string, string[]> = {
  'publishEvents(': ['shared/webhooks/webhook-events.ts', 'worker/webhooks/relay.ts'],
  'enqueueDeliveries(': ['shared/webhooks/webhook-deliveries.ts', 'shared/webhooks/webhook-events.ts', 'api/routes/webhook-tools.ts'],
  'saveEvent(': ['shared/store/webhook-store.ts', 'shared/webhooks/webhook-events.ts', 'api/routes/webhook-tools.ts'],
  'eventOutlet(': ['shared/webhooks/webhook-events.ts', 'worker/webhooks/worker.ts'],
};

describe('who emits webhook events', () => {
  it('is the relay of the outbox alone: no caller of a store write queues or stores an event', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(50);
    const found: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const [call, allowed] of Object.entries(ALLOWED)) {
        if (text.includes(call) && !allowed.includes(file)) found.push(`${file}: ${call}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('finds a call where the check looks for one (the relay publishes)', () => {
    expect(readFileSync(join(ROOT, 'worker/webhooks/relay.ts'), 'utf8')).toContain('publishEvents(');
  });
});
