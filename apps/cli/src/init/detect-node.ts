// What a package.json tells `harness init`: its scripts (the fixed set `node.run` takes), the local
// binaries its dependencies install (the fixed set `node.exec_bin` takes), and its package manager.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../errors';

/** The package manager a lockfile names. `bun` has no support in the node pack: it runs npm. */
export type PackageManager = 'pnpm' | 'yarn' | 'npm' | 'bun';

/** A Node.js project as `harness init` reads it. */
export interface NodeProject {
  readonly manager: PackageManager;
  /** The lockfile that says so, `undefined` when there is none (the node pack then runs npm). */
  readonly lockfile: string | undefined;
  /** Every script of package.json, in its order (`test` included). */
  readonly allScripts: readonly string[];
  /** The scripts `node.run` may run, in package.json's order. */
  readonly scripts: readonly string[];
  /** Scripts left out of that list, each with why. */
  readonly skippedScripts: readonly { readonly name: string; readonly why: string }[];
  readonly hasTest: boolean;
  /**
   * The `node_modules/.bin` binaries `node.exec_bin` may run, each with where it was found: the
   * dependency that installs it, or the script that runs it.
   */
  readonly bins: readonly { readonly bin: string; readonly from: string }[];
}

/** The lockfiles in the order the node pack reads them (pnpm, then yarn, else npm), bun's last. */
const LOCKFILES: readonly (readonly [string, PackageManager])[] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
  ['bun.lock', 'bun'],
  ['bun.lockb', 'bun'],
];

/** Scripts npm runs by itself around install and publish: running one by hand is never the task. */
const LIFECYCLE = new Set([
  'preinstall',
  'install',
  'postinstall',
  'preuninstall',
  'uninstall',
  'postuninstall',
  'prepublish',
  'preprepare',
  'prepare',
  'postprepare',
  'prepublishOnly',
  'prepack',
  'postpack',
  'publish',
  'postpublish',
  'preversion',
  'version',
  'postversion',
  'dependencies',
]);

/** The pattern `node.run`'s `script` input accepts (packages/packs/standard/node.yaml). */
const SCRIPT = /^[A-Za-z0-9_][A-Za-z0-9_.:@/+-]*$/;

/** Dependencies whose binary a coding agent runs with arguments: type checkers, linters, test runners. */
const KNOWN_BINS: Readonly<Record<string, string>> = {
  typescript: 'tsc',
  eslint: 'eslint',
  '@biomejs/biome': 'biome',
  prettier: 'prettier',
  xo: 'xo',
  tsd: 'tsd',
  vitest: 'vitest',
  jest: 'jest',
  mocha: 'mocha',
  ava: 'ava',
};

const BIN_NAMES = new Set(Object.values(KNOWN_BINS));

/** Reads `<dir>/package.json`; `undefined` when there is none. A file that is not JSON is refused. */
export function detectNode(dir: string): NodeProject | undefined {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  const manifest = readManifest(file);
  const lock = LOCKFILES.find(([name]) => existsSync(join(dir, name)));
  const scripts = Object.keys(objectAt(manifest, 'scripts'));
  const skippedScripts: { name: string; why: string }[] = [];
  const listed: string[] = [];
  for (const name of scripts) {
    const why = scriptSkipped(name);
    if (why === undefined) listed.push(name);
    else skippedScripts.push({ name, why });
  }
  return {
    manager: lock?.[1] ?? 'npm',
    lockfile: lock?.[0],
    allScripts: scripts,
    scripts: listed,
    skippedScripts,
    hasTest: scripts.includes('test'),
    bins: knownBins(manifest),
  };
}

/**
 * The known tools the project installs (its dependencies) or runs (the first word of each command
 * of its scripts: `xo && ava && tsd` runs three), each once, dependencies first.
 */
function knownBins(manifest: Record<string, unknown>): { bin: string; from: string }[] {
  const deps = { ...objectAt(manifest, 'dependencies'), ...objectAt(manifest, 'devDependencies') };
  const found = new Map<string, string>();
  for (const [dep, bin] of Object.entries(KNOWN_BINS)) if (dep in deps) found.set(bin, dep);
  for (const [name, body] of Object.entries(objectAt(manifest, 'scripts'))) {
    if (typeof body !== 'string') continue;
    for (const command of body.split(/&&|\|\||[;|&]/)) {
      // `NODE_ENV=test jest` and `npx vitest` run jest and vitest.
      const words = command.trim().split(/\s+/);
      const bin = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) && w !== 'npx') ?? '';
      if (BIN_NAMES.has(bin) && !found.has(bin)) found.set(bin, `scripts.${name}`);
    }
  }
  return [...found].map(([bin, from]) => ({ bin, from }));
}

function scriptSkipped(name: string): string | undefined {
  if (name === 'test') return 'node.test runs it';
  if (LIFECYCLE.has(name)) return 'npm runs it itself around install or publish';
  if (!SCRIPT.test(name) || name.length > 200) return 'its name holds characters node.run refuses';
  return undefined;
}

function readManifest(file: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(
      'config',
      `${file} is not JSON (${(error as Error).message}); fix it and run harness init again`,
      { cause: error },
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CliError('config', `${file} holds no JSON object; fix it and run harness init again`);
  return value as Record<string, unknown>;
}

function objectAt(manifest: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = manifest[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
