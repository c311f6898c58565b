import { defineScript } from './script.js';

/** Worker: takes a fetch slot of one host for a lease, if the host has a free slot. */
export const acquireHostSlotScript = defineScript({
  name: 'hostAcquireSlot',
  file: 'acquireHostSlot',
  keys: ['leases'],
  build: (i: { host: string; token: string; leaseMs: number; maxPerHost: number }, k) => ({
    keys: { leases: k.hostLeases(i.host) },
    args: { token: i.token, leaseMs: i.leaseMs, maxPerHost: i.maxPerHost },
  }),
  replies: { ok: {}, busy: { retryInMs: 'int' } },
});

/** Worker: records the start of a request to one host, if the last one started at least the spacing ago. */
export const startHostFetchScript = defineScript({
  name: 'hostStartFetch',
  file: 'startHostFetch',
  keys: ['nextStart'],
  build: (i: { host: string; spacingMs: number }, k) => ({
    keys: { nextStart: k.hostNextStart(i.host) },
    args: { spacingMs: i.spacingMs },
  }),
  replies: { ok: {}, spacing: { retryInMs: 'int' } },
});
