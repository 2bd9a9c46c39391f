// What a repository uses, read from its top directory: the facts `harness init` picks standard packs
// and their fixed sets from. Nothing here runs a program of the project.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { detectNode, type NodeProject } from './detect-node';
import { detectPython, type PythonProject } from './detect-python';
import { detectRust, type RustProject } from './detect-rust';
import { makeTargets } from './makefile';

/** A project's Makefile: the file make would read, and its targets. */
export interface MakeProject {
  readonly file: string;
  readonly targets: readonly string[];
  readonly skipped: number;
}

/** What `harness init` found in a project directory. */
export interface Detected {
  readonly dir: string;
  /** `dir` holds `.git`: a directory (a repository's top), or a file (a linked worktree, a submodule). */
  readonly git: 'dir' | 'file' | undefined;
  /** Without `.git` here, the directory above that holds one (`dir` is inside a repository). */
  readonly repositoryAbove: string | undefined;
  /** JSON files at the top (jq has something to read). */
  readonly jsonFiles: readonly string[];
  readonly node: NodeProject | undefined;
  readonly python: PythonProject | undefined;
  /** `Cargo.toml` is there, and what it says. */
  readonly rust: RustProject | undefined;
  readonly make: MakeProject | undefined;
  /** `go.mod` is there. */
  readonly go: boolean;
}

/** Make reads the first of these that exists. */
const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];

/** Reads what `dir` uses. A `package.json` that is not JSON is refused (a CliError naming it). */
export function detectProject(dir: string): Detected {
  const names = readdirSync(dir);
  const git = gitKind(join(dir, '.git'));
  return {
    dir,
    git,
    repositoryAbove: git === undefined ? repositoryAbove(dir) : undefined,
    jsonFiles: names.filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort(),
    node: detectNode(dir),
    python: detectPython(dir),
    rust: detectRust(dir, names),
    make: detectMake(dir, names),
    go: names.includes('go.mod'),
  };
}

function gitKind(path: string): Detected['git'] {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

function repositoryAbove(dir: string): string | undefined {
  for (let up = dirname(dir); up !== dirname(up); up = dirname(up)) {
    if (existsSync(join(up, '.git'))) return up;
  }
  return undefined;
}

function detectMake(dir: string, names: readonly string[]): MakeProject | undefined {
  const file = MAKEFILES.find((n) => names.includes(n));
  if (file === undefined || !existsSync(join(dir, file))) return undefined;
  const { targets, skipped } = makeTargets(readFileSync(join(dir, file), 'utf8'));
  return { file, targets, skipped };
}

/** `2 script(s): test, build`: every script, the first eight by name. */
function describeScripts(scripts: readonly string[]): string {
  if (scripts.length === 0) return 'no script';
  const named = scripts.slice(0, 8).join(', ');
  return `${scripts.length} script(s): ${named}${scripts.length > 8 ? ', …' : ''}`;
}

function describeManager(node: NodeProject): string {
  return node.lockfile === undefined
    ? `${node.manager}, no lockfile`
    : `${node.manager} from ${node.lockfile}`;
}

/** One line for a person: what was found, e.g. `git repository; package.json (pnpm); Makefile (3 targets)`. */
export function describeDetected(d: Detected): string {
  const parts: string[] = [];
  if (d.git === 'dir') parts.push('git repository');
  if (d.git === 'file') parts.push('.git file (a linked worktree or submodule)');
  if (d.node) parts.push(`package.json (${describeScripts(d.node.allScripts)}; ${describeManager(d.node)})`);
  if (d.python)
    parts.push(
      `Python (${[...d.python.evidence, ...d.python.roots.map((r) => `imports from ${r.dir}/`)].join(', ')})`,
    );
  if (d.rust)
    parts.push(
      d.rust.nightlyBenches.length > 0
        ? `Cargo.toml (benches for nightly: ${d.rust.nightlyBenches.join(', ')})`
        : 'Cargo.toml',
    );
  if (d.make) parts.push(`${d.make.file} (${d.make.targets.length} target(s))`);
  if (d.go) parts.push('go.mod');
  return parts.length === 0 ? 'nothing a standard pack runs besides files and search' : parts.join('; ');
}
