import { defineScript } from './script.js';

/** Relay: deletes relayed entries of a knowledge base's outbox and takes their bytes off its count. */
export const ackOutboxScript = defineScript({
  name: 'kbAckOutbox',
  file: 'ackOutbox',
  keys: ['stream', 'info'],
  build: (i: { kbId: string; ids: string[] }, k) => ({
    keys: { stream: k.outbox(i.kbId), info: k.outboxInfo(i.kbId) },
    args: { ids: i.ids },
  }),
  replies: { ok: { deleted: 'int' } },
});

/** Relay: drops a knowledge base from the outbox index unless it was marked again since its score was read. */
export const unmarkOutboxScript = defineScript({
  name: 'kbUnmarkOutbox',
  file: 'unmarkOutbox',
  keys: ['index'],
  build: (i: { kbId: string; score: number }, k) => ({ keys: { index: k.outboxKbs() }, args: { kbId: i.kbId, score: i.score } }),
  replies: { ok: {}, kept: {} },
});
