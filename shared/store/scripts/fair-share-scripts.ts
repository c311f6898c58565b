import { defineScript } from './script.js';

/** API, worker: priorities for new jobs of one workspace, round by round with the other workspaces. */
export const fairPrioritiesScript = defineScript({
  name: 'queueFairPriorities',
  file: 'fairPriorities',
  keys: ['ledger', 'prioritized', 'wait', 'delayed'],
  build: (i: { queueName: string; workspaceId: string; count: number; maxPriority: number }, k) => ({
    keys: {
      ledger: k.fairShareLedger(i.queueName),
      prioritized: k.bullQueueKey(i.queueName, 'prioritized'),
      wait: k.bullQueueKey(i.queueName, 'wait'),
      delayed: k.bullQueueKey(i.queueName, 'delayed'),
    },
    args: { workspaceId: i.workspaceId, count: i.count, maxPriority: i.maxPriority },
  }),
  replies: { ok: { first: 'int' } },
});
