// Helpers that several packages' tests need. Tests import this package's TypeScript directly.
import { readdirSync, readFileSync } from 'node:fs';

export { findBinary } from './binary';
export { buildBinIfStale } from './bins';
export { FC_DEFAULT_SEED, fcRuns, fcSeed } from './fast-check';
export { replaceFile, tempDir } from './files';
export { Lines } from './lines';
export {
  CONFORMANCE,
  EVERYTHING,
  FILESYSTEM,
  type InstalledServer,
  installServer,
  MEMORY,
  type PinnedServer,
  PLAYWRIGHT_MCP,
  POSTGRES_SERVER,
  serversCache,
} from './mcp-servers';
export { binary, LINUX, type Need, needs, type Requirement, ROOT, sandboxMechanism, working } from './needs';
export { fixturesDir, repoRoot } from './paths';
export { type UntilOptions, until } from './until';
export { eventNameOf, type WebhookFixture, webhookFixtures } from './webhooks';

/**
 * Pids of the live processes whose argv holds `marker`, found through /proc as any user of the
 * machine would find them (a zombie counts as gone: it runs nothing). Linux only.
 */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(marker)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // It exited while we looked.
    }
  }
  return found;
}
