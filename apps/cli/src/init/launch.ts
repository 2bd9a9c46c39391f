// How an MCP client starts `harness serve` for a project: the program and arguments written into its
// config, and the instance directory the project's looms, approvals and audit live in.
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT } from './workspace-writer';

/** How the server is started: from this checkout with node, or the published package with npx. */
export interface Launch {
  readonly form: 'checkout' | 'npx';
  readonly command: string;
  /** The arguments up to and including the subcommand's place, e.g. `['-y', '@harness/cli']`. */
  readonly prefix: readonly string[];
}

/** The built entry of the running CLI (the chunks sit beside it). */
export function runningEntry(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'harness.js');
}

/**
 * `node <entry>` when `entry` is the built bin of a checkout of this repository (a git work tree
 * holding this workspace, not inside a node_modules folder); otherwise `npx -y @harness/cli`, which
 * works wherever Node.js is, whatever installed this copy.
 */
export function launchFor(entry: string): Launch {
  const real = existsSync(entry) ? realpathSync(entry) : entry;
  const npx: Launch = { form: 'npx', command: 'npx', prefix: ['-y', '@harness/cli'] };
  if (real.split(sep).includes('node_modules')) return npx;
  const root = join(dirname(real), '..', '..', '..');
  const checkout =
    real === join(root, 'apps', 'cli', 'dist', 'harness.js') &&
    existsSync(join(root, '.git')) &&
    existsSync(join(root, 'pnpm-workspace.yaml'));
  return checkout ? { form: 'checkout', command: 'node', prefix: [real] } : npx;
}

/** The arguments of `harness serve` for the project's workspace, instance and agent. */
export function serveArgs(launch: Launch, workspaceFile: string, instanceDir: string): string[] {
  return [
    ...launch.prefix,
    'serve',
    '--workspace',
    workspaceFile,
    '--instance',
    instanceDir,
    '--agent',
    AGENT,
  ];
}

/**
 * The project's own instance: `$XDG_DATA_HOME/harness/<dir name>-<hash of its path>` (default
 * `~/.local/share/harness/…`). Outside the project on purpose: the project's writes (a make
 * recipe, a test) must not reach the store that holds its approvals and audit. One per project, so
 * two repositories never share, or fight over, one instance's workspace.
 */
export function projectInstance(projectDir: string, home: string): string {
  const dataHome = process.env.XDG_DATA_HOME || join(home, '.local', 'share');
  const slug = basename(projectDir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '');
  const hash = createHash('sha256').update(projectDir).digest('hex').slice(0, 8);
  return join(dataHome, 'harness', `${slug || 'project'}-${hash}`);
}
