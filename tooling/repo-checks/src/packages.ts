// What a published package promises the people who install it: a complete manifest, and a tarball
// that holds what the manifest names (its types, every export target, its bins), its README and
// its LICENSE, and none of the repository's tests or sources. docs/contributing.md, "Releases".
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository every published package names in `repository.url`. */
export const REPOSITORY_URL = 'git+https://github.com/harness-commands/harness-commands.git';

/** The license of every published package (and the SPDX id its `license` field holds). */
export const LICENSE_ID = 'Apache-2.0';

/** The export condition that points at sources inside the repository only (never shipped). */
export const SOURCE_CONDITION = '@harness/source';

/** A package.json, as far as these checks read it. */
export interface Manifest {
  name?: string | undefined;
  version?: string | undefined;
  private?: boolean | undefined;
  description?: string | undefined;
  license?: string | undefined;
  repository?: { type?: string; url?: string; directory?: string } | string | undefined;
  files?: string[] | undefined;
  engines?: { node?: string } | undefined;
  exports?: unknown;
  types?: string | undefined;
  bin?: string | Record<string, string> | undefined;
}

/** A published package: its folder relative to the repository root, and its manifest. */
export interface Published {
  dir: string;
  manifest: Manifest;
}

/** Every package of packages/* and apps/* that is not private: what a release publishes. */
export function publishedPackages(root: string): Published[] {
  return ['packages', 'apps'].flatMap((top) =>
    existsSync(join(root, top))
      ? readdirSync(join(root, top))
          .sort()
          .map((name) => `${top}/${name}`)
          .filter((dir) => existsSync(join(root, dir, 'package.json')))
          .map((dir) => ({
            dir,
            manifest: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')),
          }))
          .filter((p) => p.manifest.private !== true)
      : [],
  );
}

/** The paths an `exports` map names, but those of the source condition, without their `./`. */
export function exportTargets(exports: unknown): string[] {
  const out: string[] = [];
  const walk = (value: unknown, condition: string): void => {
    if (typeof value === 'string') {
      if (condition !== SOURCE_CONDITION) out.push(value);
    } else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) walk(inner, key);
    }
  };
  walk(exports, '');
  return out.map(stripDot);
}

const stripDot = (path: string) => path.replace(/^\.\//, '');

function binTargets(bin: Manifest['bin']): string[] {
  if (bin === undefined) return [];
  return (typeof bin === 'string' ? [bin] : Object.values(bin)).map(stripDot);
}

/**
 * What a published package's manifest lacks: `description`, `license` (Apache-2.0), `repository`
 * (git, this repository, its own folder), `files` (README.md and LICENSE listed), `engines.node`,
 * `exports`, and `types` (the `.` export's types) — or, for a package with no `.` export (a CLI),
 * a `bin` instead of `types`.
 */
export function manifestProblems(dir: string, m: Manifest): string[] {
  const problems: string[] = [];
  if (!m.description) problems.push('no description');
  if (m.license !== LICENSE_ID) problems.push(`license is ${JSON.stringify(m.license)}, not "${LICENSE_ID}"`);
  const repo = typeof m.repository === 'object' ? m.repository : undefined;
  if (repo?.type !== 'git' || repo.url !== REPOSITORY_URL || repo.directory !== dir) {
    problems.push(
      `repository is ${JSON.stringify(m.repository)}, not { type: "git", url: "${REPOSITORY_URL}", directory: "${dir}" }`,
    );
  }
  if (!Array.isArray(m.files)) problems.push('no files list');
  else
    for (const f of ['README.md', 'LICENSE'])
      if (!m.files.includes(f)) problems.push(`files does not list ${f}`);
  if (!m.engines?.node) problems.push('no engines.node');
  if (!m.exports || typeof m.exports !== 'object') {
    problems.push('no exports map');
  } else {
    const dot = (m.exports as Record<string, unknown>)['.'];
    const dotTypes = dot && typeof dot === 'object' ? (dot as Record<string, unknown>).types : undefined;
    if (dot === undefined) {
      if (binTargets(m.bin).length === 0) problems.push('neither a "." export (with types) nor a bin');
      if (m.types !== undefined) problems.push('types names a file though there is no "." export');
    } else if (typeof dotTypes !== 'string') {
      problems.push('the "." export has no types condition');
    } else if (m.types !== dotTypes) {
      problems.push(`types is ${JSON.stringify(m.types)}, not the "." export's ${JSON.stringify(dotTypes)}`);
    }
  }
  return problems;
}

/** Whether `path` (a plain path, or a subpath pattern with one `*`) is in `files`. */
function holds(path: string, files: ReadonlySet<string>): boolean {
  const star = path.indexOf('*');
  if (star < 0) return files.has(path);
  const [head, tail] = [path.slice(0, star), path.slice(star + 1)];
  return [...files].some(
    (f) => f.startsWith(head) && f.endsWith(tail) && f.length > head.length + tail.length,
  );
}

/** Test code in a tarball: a test/ or __tests__/ folder, a `*.test.*` or `*.spec.*` file, or src/. */
const TEST_OR_SOURCE = /(^|\/)(test|tests|__tests__)\/|\.(test|spec)\.[cm]?[jt]sx?$|^src\//;

/**
 * What the tarball of `m` (its file list `files`, paths relative to the package) lacks or should
 * not hold: package.json, README.md, LICENSE, `types`, every export and bin target are there; no
 * test and no source file is.
 */
export function tarballProblems(m: Manifest, files: readonly string[]): string[] {
  const set = new Set(files);
  const problems: string[] = [];
  const needed = ['package.json', 'README.md', 'LICENSE'];
  if (m.types) needed.push(stripDot(m.types));
  needed.push(...exportTargets(m.exports), ...binTargets(m.bin));
  for (const path of new Set(needed)) if (!holds(path, set)) problems.push(`the tarball lacks ${path}`);
  for (const f of files) if (TEST_OR_SOURCE.test(f)) problems.push(`the tarball holds ${f}`);
  return problems;
}

/** The files `npm pack --dry-run` would put in the tarball of the package in `dir` (absolute). */
export function packedFiles(dir: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      ['pack', '--dry-run', '--json', '--ignore-scripts'],
      { cwd: dir, maxBuffer: 64 << 20, env: { ...process.env, npm_config_loglevel: 'error' } },
      (error, stdout, stderr) => {
        if (error)
          return reject(new Error(`npm pack --dry-run in ${dir} failed: ${error.message}\n${stderr}`));
        const [report] = JSON.parse(stdout) as { files: { path: string }[] }[];
        if (!report) return reject(new Error(`npm pack --dry-run in ${dir} reported nothing`));
        resolve(report.files.map((f) => f.path).sort());
      },
    );
  });
}
