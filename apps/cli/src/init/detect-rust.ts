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

/** Reads `<dir>/Cargo.toml` and its bench sources; `undefined` when there is no Cargo.toml. */
export function detectRust(dir: string, names: readonly string[]): RustProject | undefined {
  if (!names.includes('Cargo.toml')) return undefined;
  const benches = new Set(listRs(dir, 'benches'));
  for (const path of declaredBenches(read(join(dir, 'Cargo.toml')))) benches.add(path);
  const nightlyBenches = [...benches]
    .filter((path) => /^\s*#!\[feature\(/m.test(read(join(dir, path))))
    .sort();
  return { nightlyBenches };
}

/** The `path` of each `[[bench]]` that names one inside the project. */
function declaredBenches(manifest: string): string[] {
  let doc: Table;
  try {
    doc = parse(manifest) as Table;
  } catch {
    return [];
  }
  const bench = Array.isArray(doc.bench) ? (doc.bench as unknown[]) : [];
  return bench
    .map((b) => (b !== null && typeof b === 'object' ? (b as Table).path : undefined))
    .filter((p): p is string => typeof p === 'string' && !p.startsWith('/') && !p.split('/').includes('..'));
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
