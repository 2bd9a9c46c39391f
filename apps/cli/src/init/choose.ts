// Which standard packs fit a project, with the fixed sets each takes from the workspace (scripts,
// targets, binaries, modules) and the writes held back because nothing was found for them to run.
import type { Detected } from './detect';
import type { StandardCatalog } from './standard';

/** One `input_overrides` list: the values a command's input may take. */
export interface OverrideChoice {
  /** The command's id inside its pack, e.g. `run`. */
  readonly command: string;
  readonly input: string;
  readonly values: readonly string[];
  /** Why these values (the comment beside them). */
  readonly comment: string;
  /** What was found and left out of them, each with why (comment lines above them). */
  readonly leftOut?: string;
}

/** One standard pack the workspace declares. */
export interface PackChoice {
  readonly id: string;
  /** Why it fits this project (the comment above the entry). */
  readonly why: string;
  readonly overrides: readonly OverrideChoice[];
  /** Writes not granted, by command id (`python.ruff`), each with why. */
  readonly heldBack: ReadonlyMap<string, string>;
}

/** The packs for a project, and what a person should know about what was left out. */
export interface WorkspaceChoice {
  readonly packs: readonly PackChoice[];
  readonly notes: readonly string[];
}

/**
 * Picks the packs: git for a repository, files and search always, jq where there is JSON, node,
 * python, rust and make where their files are, go where this release has a pack for it.
 */
export function choosePacks(d: Detected, catalog: StandardCatalog): WorkspaceChoice {
  const packs: PackChoice[] = [];
  const notes: string[] = [];
  const plain = (id: string, why: string): PackChoice => ({ id, why, overrides: [], heldBack: new Map() });
  if (d.git === 'dir') packs.push(plain('git', 'git: this directory is a git repository (.git).'));
  if (d.git === 'file')
    notes.push(
      '.git is a file here (a linked worktree or a submodule): its git directory lies outside the project, so the git pack is left out; docs/standard-packs.md#git says how to add it by hand',
    );
  if (d.repositoryAbove !== undefined)
    notes.push(
      `this directory is inside the git repository ${d.repositoryAbove}: the git pack runs at a repository's top, so it is left out; run harness init there to include it`,
    );
  packs.push(plain('files', "files: reading the project's files fits every project."));
  packs.push(plain('search', "search: searching the project's text fits every project."));
  if (d.jsonFiles.length > 0)
    packs.push(plain('jq', `jq: the project has JSON files (${d.jsonFiles.join(', ')}).`));
  if (d.node) packs.push(nodeChoice(d.node, notes));
  if (d.python) packs.push(pythonChoice(d.python));
  if (d.rust) packs.push(plain('rust', 'rust: Cargo.toml is here.'));
  if (d.make) packs.push(makeChoice(d.make));
  if (d.go && catalog.has('go')) packs.push(plain('go', 'go: go.mod is here.'));
  else if (d.go)
    notes.push('go.mod found, but this release has no standard Go pack: nothing was added for Go');
  return { packs: packs.filter((p) => catalog.has(p.id)), notes };
}

function nodeChoice(node: NonNullable<Detected['node']>, notes: string[]): PackChoice {
  const heldBack = new Map<string, string>();
  if (!node.hasTest) heldBack.set('node.test', 'package.json has no test script');
  if (node.scripts.length === 0)
    heldBack.set(
      'node.run',
      'no script to list was found: list them in input_overrides above, then grant it',
    );
  if (node.bins.length === 0)
    heldBack.set('node.exec_bin', 'no known tool binary was found: list them in input_overrides above');
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
  return {
    id: 'node',
    why: `node: package.json is here; ${manager}.`,
    overrides: [
      {
        command: 'run',
        input: 'script',
        values: node.scripts.length > 0 ? node.scripts : ['build'],
        comment: node.scripts.length > 0 ? 'the scripts of package.json' : 'a placeholder: no script to list',
        ...(skipped ? { leftOut: `Scripts of package.json left out: ${skipped}.` } : {}),
      },
      {
        command: 'exec_bin',
        input: 'bin',
        values: node.bins.length > 0 ? node.bins.map((b) => b.bin) : ['tsc'],
        comment:
          node.bins.length > 0
            ? `the tools its dependencies install (${node.bins.map((b) => b.from).join(', ')})`
            : 'a placeholder: no known tool among its dependencies',
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
    heldBack.set('python.run_module', 'no package with a __main__.py: list modules in input_overrides above');
  return {
    id: 'python',
    why: `python: ${python.evidence.join(', ')} found. It runs the first python3 on PATH: put the project's virtualenv first with env: { PATH: ... } (docs/standard-packs.md#python).`,
    overrides: [
      {
        command: 'run_module',
        input: 'module',
        values: python.modules.length > 0 ? python.modules : ['main'],
        comment:
          python.modules.length > 0
            ? 'the packages holding a __main__.py'
            : 'a placeholder: no package holds a __main__.py',
      },
    ],
    heldBack,
  };
}

function makeChoice(make: NonNullable<Detected['make']>): PackChoice {
  const heldBack = new Map<string, string>();
  if (make.targets.length === 0) heldBack.set('make.run', `no target to list was found in ${make.file}`);
  const skipped =
    make.skipped > 0
      ? `Left out of ${make.file}: ${make.skipped} special (.PHONY), pattern (%) or variable ($) target name(s).`
      : undefined;
  return {
    id: 'make',
    why: `make: ${make.file} is here.`,
    overrides: [
      {
        command: 'run',
        input: 'target',
        values: make.targets.length > 0 ? make.targets : ['all'],
        comment:
          make.targets.length > 0
            ? `the targets of ${make.file}`
            : `a placeholder: ${make.file} names no plain target`,
        ...(skipped ? { leftOut: skipped } : {}),
      },
    ],
    heldBack,
  };
}
