// The one way a test says what it needs from the machine (a program on PATH, a service, a sandbox,
// Linux, root). Where it is missing, the test skips with one line saying what and how to get it;
// under CI=true it fails with that line instead, so nothing CI should run is skipped unseen.
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, it, type TestFunction, type TestOptions } from 'vitest';
import { findBinary } from './binary';

/** What `it` takes after its title: a body and a timeout or options, or options and then a body. */
type TestRest = [body: TestFunction, timeout?: number] | [options: TestOptions, body: TestFunction];

/** Registers a test through `at` (`it` or `it.skip`) with what followed its title. */
function register(at: typeof it | typeof it.skip, title: string, rest: TestRest): void {
  if (typeof rest[0] === 'function') at(title, rest[0], rest[1] as number | undefined);
  else at(title, rest[0], rest[1] as TestFunction);
}

/** Something a block of tests needs, whether this machine has it, and how a person gets it. */
export interface Requirement {
  /** What is needed, as a person names it: `jq on PATH`, `PostgreSQL on 127.0.0.1:5432`. */
  readonly what: string;
  readonly present: boolean;
  /** How to get it: a command, or where the docs say. */
  readonly install: string;
  /** Why CI cannot provide it either, when it cannot: then its absence skips under CI=true too. */
  readonly notInCi?: string;
}

/** A block's requirements, and `describe`/`it` that skip (outside CI) or fail (under CI) without them. */
export interface Need {
  /** True when everything needed is here. */
  readonly present: boolean;
  /** True when the tests run: everything is here, or CI=true requires it (then they fail, naming it). */
  readonly runs: boolean;
  /** What is missing and how to get it, one line; undefined when everything is here. */
  readonly missing: string | undefined;
  /** `describe` that skips with {@link missing} outside CI, and fails each of its tests with it under CI. */
  describe(title: string, body: () => void): void;
  /** `it` that skips with {@link missing} outside CI, and fails with it under CI; vitest's arguments. */
  it(title: string, ...rest: TestRest): void;
  /** `describe.each(cases)` of {@link describe}: one block per case, `%s` in the title naming it. */
  each<T extends string | number>(cases: readonly T[]): (title: string, body: (c: T) => void) => void;
}

// How to install the programs the tests use (Debian's package names, which CI installs; .ci/run).
const INSTALL: Record<string, string> = {
  bwrap: 'apt-get install bubblewrap',
  cargo: 'install Rust with rustup (https://rustup.rs)',
  gh: 'apt-get install gh',
  git: 'apt-get install git',
  jq: 'apt-get install jq (brew install jq)',
  make: 'apt-get install make',
  mypy: 'apt-get install mypy',
  psql: 'apt-get install postgresql-client',
  pytest: 'apt-get install python3-pytest',
  python3: 'apt-get install python3',
  rg: 'apt-get install ripgrep',
  runuser: 'apt-get install util-linux',
};

/** A program on PATH. */
export function binary(name: string): Requirement {
  return {
    what: `${name} on PATH`,
    present: findBinary(name) !== undefined,
    install: INSTALL[name] ?? `install ${name} with your package manager`,
  };
}

/** A command that runs and exits 0 here: a Python module importable, a cargo component installed. */
export function working(what: string, argv: readonly [string, ...string[]], install: string): Requirement {
  let present = true;
  try {
    execFileSync(argv[0], argv.slice(1), { stdio: 'ignore', timeout: 30_000 });
  } catch {
    present = false;
  }
  return { what, present, install };
}

/** Linux: the test reads /proc or uses Linux-only process calls. */
export const LINUX: Requirement = {
  what: 'Linux (the tests read /proc)',
  present: process.platform === 'linux',
  install: 'run them on Linux, as CI does',
};

/** Root: the test runs programs as other users. */
export const ROOT: Requirement = {
  what: 'root (the tests run programs as other users)',
  present: process.getuid?.() === 0,
  install: 'run them as root, as CI does',
};

/** A working sandbox mechanism, as `detectSandbox()` of @harness/exec found it (its reason and hint when not). */
export function sandboxMechanism(
  detection: { available: true } | { available: false; reason: string; hint: string },
): Requirement {
  return detection.available
    ? { what: 'a working sandbox', present: true, install: '' }
    : { what: `a working sandbox (${detection.reason})`, present: false, install: detection.hint };
}

const inCi = (): boolean => process.env.CI === 'true';
const told = new Set<string>();

function need(requirements: readonly Requirement[]): Need {
  const absent = requirements.filter((r) => !r.present);
  const missing =
    absent.length === 0
      ? undefined
      : `needs ${absent.map((r) => r.what).join(' and ')}, missing here: ${absent.map((r) => r.install).join('; ')}`;
  const excused = absent.flatMap((r) => (r.notInCi === undefined ? [] : [r.notInCi]));
  // What a block does: runs (all here), fails (CI=true must run it), or skips saying why.
  const mode = missing === undefined ? 'run' : inCi() && excused.length === 0 ? 'fail' : 'skip';
  const failure = () => new Error(`CI=true, and this test ${missing} (outside CI it would skip)`);
  const skipLine = (): string => {
    const line = `skipped: ${missing} (${excused.length > 0 ? `CI cannot provide it either: ${excused.join('; ')}` : 'under CI=true this fails instead'})`;
    if (!told.has(line)) process.stderr.write(`${line}\n`);
    told.add(line);
    return line;
  };
  const failFirst = () =>
    beforeAll(() => {
      throw failure();
    });
  return {
    present: missing === undefined,
    runs: mode !== 'skip',
    missing,
    describe(title, body) {
      if (mode === 'run') describe(title, body);
      else if (mode === 'fail')
        describe(title, () => {
          failFirst();
          body();
        });
      else describe.skip(`${title} (${skipLine()})`, body);
    },
    each(cases) {
      return (title, body) => {
        if (mode === 'run') describe.each(cases)(title, body);
        else if (mode === 'fail')
          describe.each(cases)(title, (c) => {
            failFirst();
            body(c);
          });
        else describe.skip.each(cases)(`${title} (${skipLine()})`, body);
      };
    },
    it(title, ...rest) {
      if (mode === 'run') register(it, title, rest);
      else if (mode === 'fail')
        it(title, () => {
          throw failure();
        });
      else register(it.skip, `${title} (${skipLine()})`, rest);
    },
  };
}

/**
 * What a block of tests needs: program names (each looked up on PATH) and {@link Requirement}s.
 * `needs('jq').describe(title, body)`, `needs('git', LINUX).it(title, body)`; `.runs` for a
 * condition outside a block. Outside CI a block that lacks one skips, printing one line saying
 * what is missing and how to install it; under CI=true it fails with that line.
 */
export function needs(...what: ReadonlyArray<string | Requirement>): Need {
  return need(what.map((w) => (typeof w === 'string' ? binary(w) : w)));
}
