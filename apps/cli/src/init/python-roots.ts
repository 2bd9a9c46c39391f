// Where a Python project's packages are imported from besides its top directory: `src` for a src
// layout. pytest and `python3 -m` put only the top on sys.path, so the python pack needs the others
// in PYTHONPATH; each is a directory inside the project, never one outside it.
import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { parse } from '@decimalturn/toml-patch';

/** One import root: a directory relative to the project's top, and where init read it. */
export interface PythonRoot {
  readonly dir: string;
  readonly from: string;
}

type Table = Record<string, unknown>;

const table = (v: unknown): Table =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Table) : {};
const strings = (v: unknown): string[] =>
  typeof v === 'string'
    ? v.split(/\s+/).filter(Boolean)
    : Array.isArray(v)
      ? v.filter((x) => typeof x === 'string')
      : [];

/**
 * The import roots `pyproject` and `setupCfg` (the texts of `<dir>/pyproject.toml` and
 * `<dir>/setup.cfg`, `''` when missing) name: pytest's `pythonpath`, setuptools' `package-dir` root
 * and `packages.find.where` (in either file), poetry's `packages[].from`; else `src` when it holds a
 * package or a runnable module (the src layout). Only directories inside the project are kept, the
 * top itself left out (it is on sys.path already).
 */
export function importRoots(dir: string, pyproject: string, setupCfg: string): PythonRoot[] {
  let doc: Table = {};
  try {
    doc = pyproject === '' ? {} : (parse(pyproject) as Table);
  } catch {
    // A pyproject.toml that does not parse names no root; pytest will say what is wrong with it.
  }
  const tool = table(doc.tool);
  const setuptools = table(tool.setuptools);
  const named: PythonRoot[] = [
    ...strings(table(table(tool.pytest).ini_options).pythonpath).map((d) => ({
      dir: d,
      from: 'pyproject.toml: [tool.pytest.ini_options] pythonpath',
    })),
    ...strings(table(setuptools['package-dir'])['']).map((d) => ({
      dir: d,
      from: 'pyproject.toml: [tool.setuptools] package-dir',
    })),
    ...strings(table(table(setuptools.packages).find).where).map((d) => ({
      dir: d,
      from: 'pyproject.toml: [tool.setuptools.packages.find] where',
    })),
    ...(Array.isArray(table(tool.poetry).packages) ? (table(tool.poetry).packages as unknown[]) : [])
      .map((p) => table(p).from)
      .filter((d): d is string => typeof d === 'string')
      .map((d) => ({ dir: d, from: 'pyproject.toml: [tool.poetry] packages from' })),
    ...setupCfgRoots(setupCfg),
  ];
  if (named.length === 0 && holdsPackage(join(dir, 'src')))
    named.push({ dir: 'src', from: 'src/ holds a package (a src layout)' });
  const seen = new Set<string>();
  return named.flatMap((root) => {
    const inside = insideDir(dir, root.dir);
    if (inside === undefined || seen.has(inside)) return [];
    seen.add(inside);
    return [{ dir: inside, from: root.from }];
  });
}

/** setup.cfg's `[options] package_dir` root (`=src`, on its line or the next) and `[options.packages.find] where`. */
function setupCfgRoots(text: string): PythonRoot[] {
  const roots: PythonRoot[] = [];
  const dirs = /^package_dir[ \t]*=(.*(?:\n[ \t]+.*)*)/m.exec(text)?.[1] ?? '';
  for (const entry of dirs.split('\n')) {
    const root = /^\s*=\s*(\S+)\s*$/.exec(entry)?.[1];
    if (root !== undefined) roots.push({ dir: root, from: 'setup.cfg: [options] package_dir' });
  }
  const where = /^\[options\.packages\.find\][^[]*?^where[ \t]*=[ \t]*(\S+)/m.exec(text)?.[1];
  if (where !== undefined) roots.push({ dir: where, from: 'setup.cfg: [options.packages.find] where' });
  return roots;
}

/** `rel` normalised, when it is a directory inside `dir` other than `dir` itself; else undefined. */
function insideDir(dir: string, rel: string): string | undefined {
  const clean = normalize(rel).replace(/[/\\]+$/, '');
  if (isAbsolute(clean) || clean === '.' || clean === '' || clean.split(sep).includes('..')) return undefined;
  if (!/^[A-Za-z0-9_.\-/]+$/.test(clean)) return undefined;
  try {
    const real = realpathSync(join(dir, clean));
    const top = realpathSync(dir);
    if (!real.startsWith(top + sep) || !lstatSync(real).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  return clean;
}

function holdsPackage(dir: string): boolean {
  try {
    return readdirSync(dir, { withFileTypes: true }).some(
      (e) =>
        e.isDirectory() &&
        readdirSync(join(dir, e.name)).some((n) => n === '__init__.py' || n === '__main__.py'),
    );
  } catch {
    return false;
  }
}
