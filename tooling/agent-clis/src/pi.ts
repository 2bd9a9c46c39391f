// Pi (`@mariozechner/pi-coding-agent`) and MCP: Pi has no MCP client, by design, so it cannot start
// or reach `harness serve`, and `harness init` has no `pi` client to register it in. What is read here
// is the evidence, from the installed package itself: its README and its `--help`.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

function help(bin: string, home: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = { PATH: process.env.PATH ?? '', HOME: home, PI_OFFLINE: '1', NO_COLOR: '1' };
    execFile(bin, ['--help'], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`pi --help failed: ${error.message}: ${stderr}`));
      else resolve(`${stdout}${stderr}`);
    });
  });
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
