// What a Cargo.toml tells `harness init`: whether the crate's benches need a nightly toolchain
// (a `#![feature(...)]` in a bench source), so that rust.check and rust.clippy, which check every
// target by default, are set to leave them out.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from '@decimalturn/toml-patch';

/** A Rust project as `harness init` reads it. */
export interface RustProject {
  /** Bench sources (relative to the project) that enable unstable features: they build on nightly only. */
  readonly nightlyBenches: readonly string[];
}

type Table = Record<string, unknown>;

/**
 * Reads `<dir>/Cargo.toml`, its workspace members' (`members = ["crates/*", "cli"]`), and their
 * bench sources; `undefined` when there is no Cargo.toml.
 */
export function detectRust(dir: string, names: readonly string[]): RustProject | undefined {
  if (!names.includes('Cargo.toml')) return undefined;
  const top = manifestAt(dir, '');
  const benches = new Set<string>();
  for (const crate of ['', ...members(dir, top)]) {
    const manifest = crate === '' ? top : manifestAt(dir, crate);
    for (const path of [...listRs(dir, join(crate, 'benches')), ...declaredBenches(manifest, crate)])
      benches.add(path);
  }
  const nightlyBenches = [...benches]
    .filter((path) => /^\s*#!\[feature\(/m.test(read(join(dir, path))))
    .sort();
  return { nightlyBenches };
}

/** The manifest of the crate at `crate` (relative to `dir`), parsed; `{}` when it does not parse. */
function manifestAt(dir: string, crate: string): Table {
  try {
    return parse(read(join(dir, crate, 'Cargo.toml'))) as Table;
  } catch {
    return {};
  }
}

/** A relative path that stays inside the project (no absolute path, no `..`). */
const inside = (p: string): boolean => !p.startsWith('/') && !p.split('/').includes('..');

/** The workspace members inside the project, a trailing `/*` expanded to the directories there. */
function members(dir: string, manifest: Table): string[] {
  const workspace = manifest.workspace as Table | undefined;
  const listed = Array.isArray(workspace?.members) ? (workspace.members as unknown[]) : [];
  return listed
    .filter((m): m is string => typeof m === 'string' && inside(m))
    .flatMap((m) => (m.endsWith('/*') ? subdirs(dir, m.slice(0, -2)) : /[*?[]/.test(m) ? [] : [m]));
}

/** The `path` of each `[[bench]]` of a crate's manifest that names one inside the project. */
function declaredBenches(manifest: Table, crate: string): string[] {
  const bench = Array.isArray(manifest.bench) ? (manifest.bench as unknown[]) : [];
  return bench
    .map((b) => (b !== null && typeof b === 'object' ? (b as Table).path : undefined))
    .filter((p): p is string => typeof p === 'string' && inside(p))
    .map((p) => join(crate, p));
}

function subdirs(dir: string, sub: string): string[] {
  try {
    return readdirSync(join(dir, sub), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(sub, e.name));
  } catch {
    return [];
  }
}

/** `benches/*.rs` and `benches/<name>/main.rs`, as cargo finds bench targets. */
function listRs(dir: string, sub: string): string[] {
  try {
    return readdirSync(join(dir, sub), { withFileTypes: true }).flatMap((e) =>
      e.isFile() && e.name.endsWith('.rs')
        ? [`${sub}/${e.name}`]
        : e.isDirectory()
          ? [`${sub}/${e.name}/main.rs`]
          : [],
    );
  } catch {
    return [];
  }
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
