// What `harness init --undo` restores: before an `--import` run writes, every file it is about to
// change is copied, byte for byte, into a directory outside the project (beside the workspace
// records), each copy readable by its owner alone (a client config can hold a token). After the run,
// a manifest names each file, its copy (or that the run created it) and the SHA-256 of what the run
// wrote, so `--undo` restores only files nobody changed since.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError } from '../errors';
import { sha256 } from './written-record';

/** One file of the last import. */
interface Entry {
  readonly path: string;
  /** The copy of what it held, under the undo directory; absent: the run created it. */
  readonly copy?: string;
  /** Its mode before the run. */
  readonly mode?: number;
  /** Directories the run created for it, deepest first. */
  readonly madeDirs: readonly string[];
  /** SHA-256 of what the run wrote. */
  readonly written?: string;
}

interface Manifest {
  readonly project: string;
  readonly at: string;
  readonly files: readonly Entry[];
}

/** The undo directory of the project at real path `projectReal`. */
export function undoDir(recordDir: string, projectReal: string): string {
  return join(recordDir, 'undo', sha256(projectReal));
}

const fileHash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Backups being taken for one run. */
export class Backup {
  private readonly entries: Entry[] = [];
  private readonly staging: string;

  constructor(private readonly dir: string) {
    this.staging = `${dir}.${process.pid}.new`;
    rmSync(this.staging, { recursive: true, force: true });
    mkdirSync(this.staging, { recursive: true, mode: 0o700 });
    chmodSync(this.staging, 0o700);
  }

  /** Copies `path` as it is now (or notes that it does not exist yet). */
  save(path: string): void {
    if (this.entries.some((e) => e.path === path)) return;
    if (!existsSync(path)) {
      const madeDirs: string[] = [];
      for (let d = dirname(path); !existsSync(d); d = dirname(d)) madeDirs.push(d);
      this.entries.push({ path, madeDirs });
      return;
    }
    const copy = `${this.entries.length}-${basename(path)}`;
    copyFileSync(path, join(this.staging, copy));
    chmodSync(join(this.staging, copy), 0o600);
    this.entries.push({ path, copy, mode: statSync(path).mode & 0o7777, madeDirs: [] });
  }

  /** Records what each file holds now, and puts the backup in place of the last one. */
  commit(projectReal: string): void {
    const files = this.entries.map((e) => (existsSync(e.path) ? { ...e, written: fileHash(e.path) } : e));
    const manifest: Manifest = { project: projectReal, at: new Date().toISOString(), files };
    writeFileSync(join(this.staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, {
      mode: 0o600,
    });
    rmSync(this.dir, { recursive: true, force: true });
    renameSync(this.staging, this.dir);
  }

  /** Drops the copies (the run wrote nothing). */
  discard(): void {
    rmSync(this.staging, { recursive: true, force: true });
  }
}

/**
 * Restores every file of the last import from `dir`, when none changed since; returns a line per
 * file. A file changed since stops it, naming the file, and nothing is restored.
 */
export function undoImport(dir: string): string[] {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    throw new CliError(
      'usage',
      'nothing to undo: no harness init --import has written in this project since the last undo',
    );
  }
  const changed = manifest.files.filter((e) => {
    const now = existsSync(e.path) ? fileHash(e.path) : undefined;
    return now !== e.written;
  });
  if (changed.length > 0)
    throw new CliError(
      'config',
      `nothing restored: ${changed.map((e) => e.path).join(', ')} changed since harness init --import wrote ${changed.length === 1 ? 'it' : 'them'}; put ${changed.length === 1 ? 'it' : 'them'} back, or restore by hand from ${dir}`,
    );
  const lines: string[] = [];
  for (const e of manifest.files) {
    if (e.copy === undefined) {
      rmSync(e.path, { force: true });
      for (const d of e.madeDirs) {
        try {
          rmdirSync(d);
        } catch {
          // A directory something else has written into since stays.
        }
      }
      lines.push(`  removed      ${e.path}`);
      continue;
    }
    const temp = join(dirname(e.path), `.${basename(e.path)}.harness-undo-${process.pid}.tmp`);
    copyFileSync(join(dir, e.copy), temp);
    chmodSync(temp, e.mode ?? 0o644);
    renameSync(temp, e.path);
    lines.push(`  restored     ${e.path}`);
  }
  rmSync(dir, { recursive: true, force: true });
  return lines;
}
