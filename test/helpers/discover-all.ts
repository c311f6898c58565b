import { discoveryStep, type DiscoverOptions, type DiscoveryResult } from '../../worker/sites/discover.js';
import { initialState } from '../../worker/sites/discovery-state.js';

/**
 * A whole discovery run step by step, as its job runs it, with the state going
 * through JSON between steps and no wait (a test or a bench measures the
 * parsing, not the pacing): what a site yields, from one call.
 */
export async function discoverAll(opts: Omit<DiscoverOptions, 'maxDelayMs'> & { maxDelayMs?: number }): Promise<DiscoveryResult> {
  const options: DiscoverOptions = { maxDelayMs: 30_000, ...opts };
  let state = initialState();
  for (;;) {
    const step = await discoveryStep(options, state, { requests: 20, until: Date.now() + 5_000 });
    if (step.kind === 'gone') throw new Error('the site went away during its discovery');
    if (step.kind === 'done') return step.result;
    state = JSON.parse(JSON.stringify({ ...state, nextAt: 0 })) as typeof state;
  }
}
