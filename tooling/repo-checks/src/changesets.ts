// The pending changesets, and `changeset version` run on a copy of the repository: what a release
// would write (each package's new version and CHANGELOG.md) without touching the checkout.
// docs/contributing.md, "Releases".
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The bump a changeset asks of one package. */
export interface Release {
  name: string;
  type: string;
}

/** One pending changeset: its file name, the packages it bumps, and what it says (the summary). */
export interface Changeset {
  file: string;
  releases: Release[];
  summary: string;
}

/** What a changeset file holds, or the reason it is not a changeset. */
export function parseChangeset(file: string, text: string): Changeset | { file: string; problem: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!match) return { file, problem: 'no front matter between two --- lines' };
  const releases: Release[] = [];
  for (const line of match[1]!.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const release = /^\s*["']?([^"':\s]+)["']?\s*:\s*(\S+)\s*$/.exec(line);
    if (!release) return { file, problem: `not a "package": bump line: ${line}` };
    releases.push({ name: release[1]!, type: release[2]! });
  }
  return { file, releases, summary: match[2]!.trim() };
}

/** Every changeset file of `root`/.changeset (all but its README), parsed. */
export function pendingChangesets(root: string): (Changeset | { file: string; problem: string })[] {
  const dir = join(root, '.changeset');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .sort()
    .map((f) => parseChangeset(f, readFileSync(join(dir, f), 'utf8')));
}

/** What `changeset version` did in the copy: its exit, its output, and each package's result. */
export interface VersionRun {
  code: number;
  output: string;
  /** Per package folder (`packages/x`): the version it would have and its CHANGELOG.md, if written. */
  packages: Map<string, { name: string; version: string; changelog: string | undefined }>;
  /** The changeset files the run left in .changeset (a release consumes them all). */
  left: string[];
}

/** The workspace package folders of `root` (packages/*, apps/*, tooling/*) that hold a package.json. */
function packageFolders(root: string): string[] {
  return ['packages', 'apps', 'tooling'].flatMap((top) =>
    existsSync(join(root, top))
      ? readdirSync(join(root, top))
          .map((name) => `${top}/${name}`)
          .filter((dir) => existsSync(join(root, dir, 'package.json')))
      : [],
  );
}

/**
 * Runs `changeset version` (the repository's own @changesets/cli) on a copy of what it reads: the
 * root manifest, pnpm-workspace.yaml, .changeset/ and every workspace package.json (and existing
 * CHANGELOG.md), in a temporary folder whose node_modules links to the repository's so the
 * configured changelog generator resolves. The checkout is never written.
 */
export async function changesetVersionDryRun(root: string): Promise<VersionRun> {
  const copy = mkdtempSync(join(tmpdir(), 'changeset-version-'));
  try {
    for (const f of ['package.json', 'pnpm-workspace.yaml']) cpSync(join(root, f), join(copy, f));
    cpSync(join(root, '.changeset'), join(copy, '.changeset'), { recursive: true });
    const folders = packageFolders(root);
    for (const dir of folders) {
      mkdirSync(join(copy, dir), { recursive: true });
      for (const f of ['package.json', 'CHANGELOG.md']) {
        if (existsSync(join(root, dir, f))) cpSync(join(root, dir, f), join(copy, dir, f));
      }
    }
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
    const bin = join(
      dirname(createRequire(join(root, 'package.json')).resolve('@changesets/cli/package.json')),
      'bin.js',
    );
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [bin, 'version'],
        { cwd: copy, maxBuffer: 16 << 20, env: { ...process.env, CI: 'true' } },
        (error, stdout, stderr) => {
          const exit = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          resolve({ code: exit, output: `${stdout}${stderr}` });
        },
      );
    });
    const packages: VersionRun['packages'] = new Map();
    for (const dir of folders) {
      const manifest = JSON.parse(readFileSync(join(copy, dir, 'package.json'), 'utf8'));
      const log = join(copy, dir, 'CHANGELOG.md');
      packages.set(dir, {
        name: manifest.name,
        version: manifest.version,
        changelog: existsSync(log) ? readFileSync(log, 'utf8') : undefined,
      });
    }
    const left = readdirSync(join(copy, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    return { code, output, packages, left };
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
