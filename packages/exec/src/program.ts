// The program a run starts, resolved once: its absolute path, the identity of the file there (device,
// inode, size, modification and change times) and the SHA-256 of its bytes. A caller that shows or
// hashes the program before the run (an approval's plan) hands this on, and the run starts exactly
// that path after checking the file there is still the one hashed: no second PATH search, and a file
// rewritten or replaced in between is refused (docs/exec.md, "What runs is what was resolved").
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { ExecError, ExecErrorCode } from './errors';
import { resolveExecutable } from './resolve';

/**
 * Which file a path named when it was resolved: fields of `stat` as decimal strings (device and
 * inode numbers can pass 2^53). Two stats of one path with equal identities found the same file,
 * unchanged: a write moves the change time, which no process can set back.
 */
export interface ProgramIdentity {
  readonly dev: string;
  readonly ino: string;
  readonly size: string;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
}

/** A program resolved once (see {@link resolveProgram}): pass it to `run` as `program`. */
export interface ResolvedProgram {
  /** The absolute path `argv[0]` resolved to (not its real path: a symlink stays a symlink, so a virtualenv's `python` still finds its `pyvenv.cfg`). */
  readonly file: string;
  /** The file found there (symlinks followed). */
  readonly identity: ProgramIdentity;
  /** SHA-256 (hex) of its bytes. */
  readonly sha256: string;
}

function identityOf(s: {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}): ProgramIdentity {
  return {
    dev: String(s.dev),
    ino: String(s.ino),
    size: String(s.size),
    mtimeNs: String(s.mtimeNs),
    ctimeNs: String(s.ctimeNs),
  };
}

const keyOf = (i: ProgramIdentity): string => `${i.dev}:${i.ino}:${i.size}:${i.mtimeNs}:${i.ctimeNs}`;

/** Whether two identities name the same unchanged file. */
export function sameIdentity(a: ProgramIdentity, b: ProgramIdentity): boolean {
  return keyOf(a) === keyOf(b);
}

// Hashes by identity: a program run again and again (git, make) is read once, not at every call.
// Bounded: past the cap the oldest entry goes (a Map keeps insertion order).
const HASH_CACHE_MAX = 512;
const hashes = new Map<string, string>();

let reads = 0;

/** How many programs were read to be hashed so far (not found in the cache): for tests. */
export const programHashReads = (): number => reads;

function remember(key: string, sha256: string): void {
  hashes.set(key, sha256);
  if (hashes.size > HASH_CACHE_MAX) hashes.delete(hashes.keys().next().value as string);
}

/**
 * The identity and SHA-256 of the file at `file`, read through one descriptor: the identity is the
 * descriptor's, taken before and after the read, so the hash is of that file as it was. A file
 * written while it was read is reported as changed.
 */
export function hashProgram(file: string): { identity: ProgramIdentity; sha256: string } {
  const fd = openSync(file, 'r');
  try {
    const before = identityOf(fstatSync(fd, { bigint: true }));
    const key = keyOf(before);
    const cached = hashes.get(key);
    if (cached !== undefined) return { identity: before, sha256: cached };
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
    reads += 1;
    const after = identityOf(fstatSync(fd, { bigint: true }));
    if (!sameIdentity(before, after)) throw changedError(file, 'was written while it was hashed');
    const sha256 = hash.digest('hex');
    remember(key, sha256);
    return { identity: before, sha256 };
  } finally {
    closeSync(fd);
  }
}

function changedError(file: string, how: string): ExecError {
  return new ExecError(
    ExecErrorCode.program_changed,
    `the program ${file} ${how}; nothing ran. Plan the call again (an approval given for the old file does not cover the new one).`,
  );
}

/**
 * Resolves `command` (an `argv[0]`) once, the way `run` would (see `resolveExecutable`), and
 * identifies and hashes the file found. Throws {@link ExecError} as `resolveExecutable` does.
 */
export function resolveProgram(command: string, path: string | undefined, cwd: string): ResolvedProgram {
  const file = resolveExecutable(command, path, cwd);
  let hashed: { identity: ProgramIdentity; sha256: string };
  try {
    hashed = hashProgram(file);
  } catch (error) {
    if (error instanceof ExecError) throw error;
    throw new ExecError(
      ExecErrorCode.not_executable,
      `executable ${JSON.stringify(command)} (${file}) could not be read to hash it (${(error as NodeJS.ErrnoException).code ?? 'error'}); expected a readable file. Fix its mode (chmod +r).`,
      { cause: error },
    );
  }
  return { file, ...hashed };
}

/**
 * Checks, right before a spawn, that the file at `program.file` is still the one resolved: same
 * device, inode, size and times. Throws {@link ExecError} `program_changed` otherwise (nothing ran).
 */
export function checkProgram(program: Pick<ResolvedProgram, 'file' | 'identity'>): void {
  let now: ProgramIdentity;
  try {
    now = identityOf(statSync(program.file, { bigint: true }));
  } catch {
    throw changedError(program.file, 'is gone since it was resolved');
  }
  if (!sameIdentity(now, program.identity)) {
    throw changedError(program.file, 'was replaced or rewritten since it was resolved and hashed');
  }
}
