// Which standard packs fit a project, with the fixed sets each takes from the workspace (scripts,
// targets, binaries, modules), the defaults and environment it needs there, the writes held back
// because nothing was found for them to run, and why each pack left out is left out.
import type { Detected } from './detect';
import type { StandardCatalog } from './standard';

/**
 * One `input_overrides` entry: the values a command's input may take (`enum`), or its default.
 * `undefined` (nothing found to list): no key is written, only a comment saying what to add.
 */
export type OverrideSet = { readonly enum: readonly string[] } | { readonly default: string } | undefined;

/** One input of one command the workspace sets. */
export interface OverrideChoice {
  /** The command's id inside its pack, e.g. `run`. */
  readonly command: string;
  readonly input: string;
  readonly set: OverrideSet;
  /** Why these values (the comment beside them), or, with no set, what to add. */
  readonly comment: string;
  /** What was found and left out of them, each with why (comment lines above them). */
  readonly leftOut?: string;
}

/** One variable of a pack's `env` the workspace sets. */
export interface EnvChoice {
  readonly name: string;
  readonly value: string;
  /** Why (the comment beside it). */
  readonly comment: string;
}

/** One standard pack the workspace declares. */
export interface PackChoice {
  readonly id: string;
  /** Why it fits this project (the comment above the entry). */
  readonly why: string;
  readonly env: readonly EnvChoice[];
  readonly overrides: readonly OverrideChoice[];
  /** Writes not granted, by command id (`python.ruff`), each with why. */
  readonly heldBack: ReadonlyMap<string, string>;
}

/** A standard pack of this release the workspace does not declare, and why. */
export interface LeftOutPack {
  readonly id: string;
  readonly why: string;
}

/** The packs for a project, the packs left out, and what else a person should know. */
export interface WorkspaceChoice {
  readonly packs: readonly PackChoice[];
  readonly leftOut: readonly LeftOutPack[];
  readonly notes: readonly string[];
}

/** Why each standard pack init knows is left out when its files are missing. */
const ABSENT: Readonly<Record<string, string>> = {
  git: 'this directory is not a git repository (no .git here)',
  jq: 'no JSON file at the top of the project',
  node: 'no package.json',
  python: 'no pyproject.toml, pytest.ini or requirements*.txt',
  rust: 'no Cargo.toml',
  make: 'no GNUmakefile, makefile or Makefile',
  go: 'no go.mod',
  gh: 'harness init never adds it: it reaches GitHub with the network and a token; add it by hand (docs/standard-packs.md#gh)',
};

/**
 * Picks the packs: git for a repository, files and search always, jq where there is JSON, node,
 * python, rust and make where their files are, go where this release has a pack for it. Every
 * other standard pack of the release is in `leftOut`, with why.
 */
export function choosePacks(d: Detected, catalog: StandardCatalog): WorkspaceChoice {
  const packs: PackChoice[] = [];
  const notes: string[] = [];
  const gone = new Map<string, string>();
  const plain = (id: string, why: string): PackChoice => ({
    id,
    why,
    env: [],
    overrides: [],
    heldBack: new Map(),
  });
  if (d.git === 'dir') packs.push(plain('git', 'git: this directory is a git repository (.git).'));
  if (d.git === 'file')
    gone.set(
      'git',
      '.git is a file here (a linked worktree or a submodule): its git directory lies outside the project, which the confined commands cannot read; docs/standard-packs.md#git says how to add it by hand',
    );
  if (d.repositoryAbove !== undefined)
    gone.set(
      'git',
      `this directory is inside the git repository ${d.repositoryAbove}: the git pack runs at a repository's top; run harness init there to include it`,
    );
  packs.push(plain('files', "files: reading the project's files fits every project."));
  packs.push(plain('search', "search: searching the project's text fits every project."));
  if (d.jsonFiles.length > 0)
    packs.push(plain('jq', `jq: the project has JSON files (${d.jsonFiles.join(', ')}).`));
  if (d.node) packs.push(nodeChoice(d.node, notes));
  if (d.python) packs.push(pythonChoice(d.python));
  if (d.rust) packs.push(rustChoice(d.rust));
  if (d.make) packs.push(makeChoice(d.make));
  if (d.go && catalog.has('go')) packs.push(plain('go', 'go: go.mod is here.'));
  else if (d.go)
    notes.push('go.mod found, but this release has no standard Go pack: nothing was added for Go');
  const chosen = packs.filter((p) => catalog.has(p.id));
  const leftOut = [...catalog.keys()]
    .filter((id) => !chosen.some((p) => p.id === id))
    .map((id) => ({
      id,
      why:
        gone.get(id) ?? ABSENT[id] ?? 'harness init does not add it; add it by hand (docs/standard-packs.md)',
    }));
  return { packs: chosen, leftOut, notes };
}

function nodeChoice(node: NonNullable<Detected['node']>, notes: string[]): PackChoice {
  const heldBack = new Map<string, string>();
  if (!node.hasTest) heldBack.set('node.test', 'package.json has no test script');
  if (node.scripts.length === 0)
    heldBack.set('node.run', 'package.json has no script for it to run (see input_overrides above)');
  if (node.bins.length === 0)
    heldBack.set('node.exec_bin', 'no known tool was found for it to run (see input_overrides above)');
  const skipped = node.skippedScripts.map((s) => `${JSON.stringify(s.name)} (${s.why})`).join(', ');
  const manager =
    node.lockfile === undefined
      ? 'no lockfile, so the pack runs npm'
      : node.manager === 'bun'
        ? `${node.lockfile} says bun, which the pack does not support: it runs npm`
        : `${node.lockfile} says ${node.manager}, which the pack picks from the lockfile at each call`;
  if (node.manager === 'bun')
    notes.push(
      `${node.lockfile}: the node pack has no bun support; its commands run npm (test and run work, install would not honour the bun lockfile)`,
    );
  const tests = node.hasTest ? ` Its test script runs through node.test.` : '';
  return {
    id: 'node',
    why: `node: package.json is here; ${manager}.${tests}`,
    env: [],
    overrides: [
      {
        command: 'run',
        input: 'script',
        set: node.scripts.length > 0 ? { enum: node.scripts } : undefined,
        comment:
          node.scripts.length > 0
            ? 'the scripts of package.json'
            : 'package.json has no script besides those left out: to offer node.run, list the scripts it may run as run: { script: { enum: [...] } }',
        ...(skipped ? { leftOut: `Scripts of package.json left out: ${skipped}.` } : {}),
      },
      {
        command: 'exec_bin',
        input: 'bin',
        set: node.bins.length > 0 ? { enum: node.bins.map((b) => b.bin) } : undefined,
        comment:
          node.bins.length > 0
            ? `the tools it installs or its scripts run (${node.bins.map((b) => b.from).join(', ')})`
            : 'no known tool among its dependencies or scripts: to offer node.exec_bin, list the node_modules/.bin names it may run as exec_bin: { bin: { enum: [...] } }',
      },
    ],
    heldBack,
  };
}

function pythonChoice(python: NonNullable<Detected['python']>): PackChoice {
  const heldBack = new Map<string, string>();
  if (!python.pytest) heldBack.set('python.pytest', 'no sign of pytest (pytest.ini, conftest.py, tests/)');
  if (!python.ruff) heldBack.set('python.ruff', 'no ruff configuration or dependency found');
  if (!python.mypy) heldBack.set('python.mypy', 'no mypy configuration or dependency found');
  if (python.modules.length === 0)
    heldBack.set('python.run_module', 'no package holds a __main__.py (see input_overrides above)');
  const roots = python.roots;
  return {
    id: 'python',
    why: `python: ${python.evidence.join(', ')} found. It runs the first python3 on PATH: put the project's virtualenv first with env: { PATH: ... } (docs/standard-packs.md#python).`,
    env:
      roots.length === 0
        ? []
        : [
            {
              name: 'PYTHONPATH',
              value: roots.map((r) => r.dir).join(':'),
              comment: `its packages import from here, inside the project (${[...new Set(roots.map((r) => r.from))].join('; ')})`,
            },
          ],
    overrides: [
      {
        command: 'run_module',
        input: 'module',
        set: python.modules.length > 0 ? { enum: python.modules } : undefined,
        comment:
          python.modules.length > 0
            ? 'the packages holding a __main__.py'
            : 'no package holds a __main__.py: to offer python.run_module, list the modules it may run as run_module: { module: { enum: [...] } }',
      },
    ],
    heldBack,
  };
}

function rustChoice(rust: NonNullable<Detected['rust']>): PackChoice {
  if (rust.nightlyBenches.length === 0)
    return { id: 'rust', why: 'rust: Cargo.toml is here.', env: [], overrides: [], heldBack: new Map() };
  return {
    id: 'rust',
    why: `rust: Cargo.toml is here; its benches need nightly (#![feature] in ${rust.nightlyBenches.join(', ')}), so rust.check and rust.clippy check targets: tests by default (the library, binaries and tests, not the benches); a call may still ask for targets: benches.`,
    env: [],
    overrides: ['check', 'clippy'].map((command) => ({
      command,
      input: 'targets',
      set: { default: 'tests' },
      comment: 'not all: its benches need nightly',
    })),
    heldBack: new Map(),
  };
}

function makeChoice(make: NonNullable<Detected['make']>): PackChoice {
  const heldBack = new Map<string, string>();
  if (make.targets.length === 0)
    heldBack.set('make.run', `${make.file} names no plain target (see input_overrides above)`);
  const skipped =
    make.skipped > 0
      ? `Left out of ${make.file}: ${make.skipped} special (.PHONY), pattern (%) or variable ($) target name(s).`
      : undefined;
  return {
    id: 'make',
    why: `make: ${make.file} is here.`,
    env: [],
    overrides: [
      {
        command: 'run',
        input: 'target',
        set: make.targets.length > 0 ? { enum: make.targets } : undefined,
        comment:
          make.targets.length > 0
            ? `the targets of ${make.file}`
            : `${make.file} names no plain target: to offer make.run, list the targets it may run as run: { target: { enum: [...] } }`,
        ...(skipped ? { leftOut: skipped } : {}),
      },
    ],
    heldBack,
  };
}
