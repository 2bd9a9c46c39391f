// What a Python project tells `harness init`: which of pytest, ruff and mypy it uses, and which of
// its packages run as `python3 -m <name>` (the fixed set `python.run_module` takes).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importRoots, type PythonRoot } from './python-roots';

/** A Python project as `harness init` reads it. */
export interface PythonProject {
  /** The files that made it a Python project (`pyproject.toml`, `pytest.ini`, `requirements*.txt`). */
  readonly evidence: readonly string[];
  readonly pytest: boolean;
  readonly ruff: boolean;
  readonly mypy: boolean;
  /** Packages holding a `__main__.py`, at the top or under `src/`. */
  readonly modules: readonly string[];
  /** The project's import roots besides its top (`src` for a src layout), each with where it was read. */
  readonly roots: readonly PythonRoot[];
}

/** The pattern `python.run_module`'s `module` input accepts (packages/packs/standard/python.yaml). */
const MODULE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Reads the Python files of `dir`; `undefined` when it has none of the three kinds. */
export function detectPython(dir: string): PythonProject | undefined {
  const names = safeList(dir);
  const evidence = names.filter(
    (n) => n === 'pyproject.toml' || n === 'pytest.ini' || /^requirements.*\.txt$/.test(n),
  );
  if (evidence.length === 0) return undefined;
  // What the project declares, lowercased: its config and its requirements name the tools it uses.
  const declared = [...evidence, 'setup.cfg']
    .filter((n) => names.includes(n))
    .map((n) => safeRead(join(dir, n)).toLowerCase())
    .join('\n');
  const has = (...files: string[]) => files.some((f) => names.includes(f));
  return {
    evidence,
    pytest: has('pytest.ini', 'conftest.py', 'tests') || /\bpytest\b/.test(declared),
    ruff: has('ruff.toml', '.ruff.toml') || /\bruff\b/.test(declared),
    mypy: has('mypy.ini', '.mypy.ini') || /\bmypy\b/.test(declared),
    modules: runnableModules(dir),
    roots: importRoots(dir, safeRead(join(dir, 'pyproject.toml')), safeRead(join(dir, 'setup.cfg'))),
  };
}

function runnableModules(dir: string): string[] {
  const found: string[] = [];
  for (const base of [dir, join(dir, 'src')]) {
    for (const name of safeList(base)) {
      if (MODULE.test(name) && existsSync(join(base, name, '__main__.py'))) found.push(name);
    }
  }
  return [...new Set(found)].sort();
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
