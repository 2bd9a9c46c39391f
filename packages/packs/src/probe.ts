import { ExecError, ExecErrorCode, run } from '@harness/exec';
import semver from 'semver';
import { PROBE_TIMEOUT_MS } from './units';

/** What probing one binary found. */
export type ProbeResult =
  | { readonly kind: 'found'; readonly version: string | undefined; readonly raw: string }
  | { readonly kind: 'missing'; readonly detail: string }
  | { readonly kind: 'failed'; readonly detail: string };

/**
 * Runs `<binary> --version` through `@harness/exec` with an env holding only `PATH`, a 10 s timeout
 * and a 64 KiB output ceiling (CP-55), and reads the first `N.N[.N]` in its output.
 */
export async function probeBinary(binary: string, path: string): Promise<ProbeResult> {
  try {
    const r = await run({
      argv: [binary, '--version'],
      env: { PATH: path },
      timeoutMs: PROBE_TIMEOUT_MS,
      maxOutputBytes: 64 * 1024,
      onExceed: 'truncate',
      killGraceMs: 500,
    });
    if (r.timedOut) return { kind: 'failed', detail: `"${binary} --version" did not finish within 10s` };
    const raw = `${r.stdout}\n${r.stderr}`;
    const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(raw);
    return { kind: 'found', version: m ? `${m[1]}.${m[2]}.${m[3] ?? '0'}` : undefined, raw: raw.trim() };
  } catch (error) {
    if (error instanceof ExecError) {
      if (error.code === ExecErrorCode.executable_not_found || error.code === ExecErrorCode.no_path) {
        return { kind: 'missing', detail: 'not found on PATH' };
      }
      if (error.code === ExecErrorCode.not_executable) return { kind: 'missing', detail: 'not executable' };
    }
    return { kind: 'failed', detail: `"${binary} --version" could not be run` };
  }
}

/** Parses a constraint (`>=1.7`, `>=1.6, <2`) into comparators; `undefined` when malformed. */
export function parseConstraint(text: string): { op: string; version: string }[] | undefined {
  const parts = text.split(',').map((s) => s.trim());
  const out: { op: string; version: string }[] = [];
  for (const part of parts) {
    const m = /^(>=|<=|==|>|<)\s*(\d+(?:\.\d+){0,2})$/.exec(part);
    if (!m) return undefined;
    const v = semver.coerce(m[2]!);
    if (!v) return undefined;
    out.push({ op: m[1]!, version: v.version });
  }
  return out;
}

/**
 * Whether `version` (`1.7.1`) satisfies `constraint`. Operators `>= <= == > <` (CP-56); a partial
 * version fills with zeros (`>=1.7` is `>=1.7.0`, `==1.7` is exactly `1.7.0`).
 */
export function satisfies(version: string, constraint: string): boolean {
  const comparators = parseConstraint(constraint);
  if (!comparators) return false;
  return comparators.every(({ op, version: want }) => {
    const c = semver.compare(version, want);
    switch (op) {
      case '>=':
        return c >= 0;
      case '<=':
        return c <= 0;
      case '==':
        return c === 0;
      case '>':
        return c > 0;
      default:
        return c < 0;
    }
  });
}
