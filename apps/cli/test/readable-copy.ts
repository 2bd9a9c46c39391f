// The built `harness` and `loom` bins, copied where any user of the machine can read them, for the
// tests that run them as other users: a clone may sit in a folder only its owner can enter (a 0700
// temp folder, a 0750 home), and a bin run from there as another user stops at MODULE_NOT_FOUND.
// The copy keeps the clone's layout (each app's package.json and dist/, the links to the packages
// its bundle imports, and the pnpm store entries those resolve to), so every import resolves in it
// as in the clone. A file others may already read is hard-linked when it can be, not copied.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { repoRoot } from '@harness/test-utils';

const STORE = join(repoRoot, 'node_modules', '.pnpm');

/** Places `from` at `to`: a link as written, a folder made enterable by all, a file readable by all. */
function place(from: string, to: string): void {
  const stat = lstatSync(from);
  if (stat.isSymbolicLink()) {
    symlinkSync(readlinkSync(from), to);
  } else if (stat.isDirectory()) {
    mkdirSync(to, { recursive: true });
    chmodSync(to, 0o755);
    for (const name of readdirSync(from)) place(join(from, name), join(to, name));
  } else {
    const readable = stat.mode & 0o100 ? stat.mode | 0o555 : stat.mode | 0o444;
    if (readable === stat.mode) {
      try {
        linkSync(from, to);
        return;
      } catch {
        // Another filesystem, or links not allowed here: copy it.
      }
    }
    copyFileSync(from, to);
    chmodSync(to, readable & 0o7777);
  }
}

/** Makes `dir` and the folders above it up to `root`, each enterable by all whatever the umask. */
function folders(root: string, dir: string): void {
  if (dir === root || existsSync(dir)) return;
  folders(root, dirname(dir));
  mkdirSync(dir);
  chmodSync(dir, 0o755);
}

/** Places `from` (a path inside the clone) at the same relative path under `root`. */
function mirror(from: string, root: string): void {
  const to = join(root, relative(repoRoot, from));
  folders(root, dirname(to));
  place(from, to);
}

/** The pnpm store entry (`node_modules/.pnpm/<entry>`) a link resolves into, if it does. */
function storeEntryOf(link: string): string | undefined {
  const target = resolve(dirname(link), readlinkSync(link));
  if (!target.startsWith(STORE + sep)) return undefined;
  return join(STORE, relative(STORE, target).split(sep)[0] as string);
}

/** The links of a folder of packages: its `name` and `@scope/name` entries that are symlinks. */
function packageLinks(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name.startsWith('@')) out.push(...readdirSync(path).map((inner) => join(path, inner)));
    else out.push(path);
  }
  return out.filter((path) => lstatSync(path).isSymbolicLink());
}

/** The dependencies an app's bundle imports at run time (the rest it bundled). */
function importedDependencies(dir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const dist = join(dir, 'dist');
  const code = readdirSync(dist)
    .filter((name) => name.endsWith('.js'))
    .map((name) => readFileSync(join(dist, name), 'utf8'))
    .join('\n');
  return Object.keys(manifest.dependencies ?? {}).filter((name) => {
    const quoted = name.replace(/[/.]/g, '\\$&');
    return new RegExp(`(from ?|require\\(|import\\()"${quoted}(/[^"]*)?"`).test(code);
  });
}

/**
 * Copies the built `harness` bin and the `loom` bin it starts (build both first) under `root`,
 * readable by every user, and answers the path of the copied `harness.js`.
 */
export function readableBins(root: string): string {
  mkdirSync(root, { recursive: true });
  chmodSync(root, 0o755);
  const entries = new Set<string>();
  for (const app of ['cli', 'loom']) {
    const dir = join(repoRoot, 'apps', app);
    mirror(join(dir, 'package.json'), root);
    mirror(join(dir, 'dist'), root);
    // The CLI finds the loom bin through its package, which it does not bundle.
    const names = [...importedDependencies(dir), ...(app === 'cli' ? ['@harness/loom'] : [])];
    for (const name of names) {
      const link = join(dir, 'node_modules', name);
      mirror(link, root);
      const entry = storeEntryOf(link);
      if (entry !== undefined) entries.add(entry);
    }
  }
  // Each store entry links to the entries of its own dependencies: the whole closure is copied.
  const queue = [...entries];
  for (let entry = queue.pop(); entry !== undefined; entry = queue.pop()) {
    mirror(entry, root);
    for (const link of packageLinks(join(entry, 'node_modules'))) {
      const next = storeEntryOf(link);
      if (next !== undefined && !entries.has(next)) {
        entries.add(next);
        queue.push(next);
      }
    }
  }
  return join(root, 'apps', 'cli', 'dist', 'harness.js');
}
