// Pi (`@mariozechner/pi-coding-agent`) and MCP: Pi has no MCP client, by design, so it cannot start
// or reach `harness serve`, and `harness init` has no `pi` client to register it in. What is read here
// is the evidence, from the installed package itself: its README and its `--help`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execToEnd } from './exec';
import type { PinnedPackage } from './install';

/** The Pi release checked: the newest on the registry on the day (its engines: node >= 20.6). */
export const PI: PinnedPackage = { name: '@mariozechner/pi-coding-agent', version: '0.73.1', bin: 'pi' };

/** Why no test drives `harness serve` through Pi, as a skip message says it. */
export const PI_SKIP_REASON =
  `Pi ${PI.version} has no MCP client: its README says "No MCP." (MCP only through an extension ` +
  'one writes or installs), `pi --help` names no MCP option, and `harness init` has no pi client';

/** What the installed Pi says about MCP. */
export interface PiMcpEvidence {
  /** The README's line on MCP, as written. */
  readmeLine: string | undefined;
  /** Every line of `pi --help` that names MCP (none expected). */
  helpMcpLines: string[];
  /** Whether `pi --help` lists `--extension`: the one way Pi takes tools from elsewhere. */
  helpHasExtension: boolean;
}

async function help(bin: string, home: string): Promise<string> {
  const env = { PATH: process.env.PATH ?? '', HOME: home, PI_OFFLINE: '1', NO_COLOR: '1' };
  const run = await execToEnd(bin, ['--help'], { env, timeoutMs: 60_000 });
  if (run.code !== 0) throw new Error(`pi --help failed (exit ${run.code}): ${run.stderr}`);
  return `${run.stdout}${run.stderr}`;
}

/** Reads the evidence from Pi installed in `dir` (its binary `bin`), with `home` as its HOME. */
export async function piMcpEvidence(dir: string, bin: string, home: string): Promise<PiMcpEvidence> {
  const readme = readFileSync(join(dir, 'node_modules', ...PI.name.split('/'), 'README.md'), 'utf8');
  const text = await help(bin, home);
  return {
    readmeLine: readme.split('\n').find((line) => line.startsWith('**No MCP.**')),
    helpMcpLines: text.split('\n').filter((line) => /\bmcp\b/i.test(line)),
    helpHasExtension: /^\s*--extension, -e <path>/m.test(text),
  };
}
