// What the tests of @harness/servers share: the fixture servers' specs, the pinned real servers
// (installed once into a cache outside the repository), and a look at whether a process is gone.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SandboxPolicy } from '@harness/exec';
import type { Requirement } from '@harness/test-utils';
import { type InstalledServer, installServer, type PinnedServer } from '@harness/test-utils';
import type { ServerSpec } from '../src/index';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** The environment a test server gets: a cleared one, plus PATH and what the test adds. */
export function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', ...extra };
}

/** A spec running `node <fixture>` in the fixtures folder. */
export function fixtureSpec(
  id: string,
  fixture: string,
  more: { sandbox?: SandboxPolicy | null; env?: Record<string, string>; startTimeoutMs?: number } & Partial<
    Pick<ServerSpec, 'maxListingBytes' | 'logBytes'>
  > = {},
): ServerSpec {
  const { sandbox = null, env = {}, startTimeoutMs = 15_000, ...bounds } = more;
  return {
    id,
    transport: {
      kind: 'stdio',
      command: [process.execPath, `${FIXTURES}${fixture}`],
      env: serverEnv(env),
      cwd: FIXTURES,
      sandbox,
    },
    startTimeoutMs,
    ...bounds,
  };
}

/** True once no process runs as `pid` (a zombie runs nothing: its parent may be slow to reap it). Linux. */
export function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state === 'Z' || state === 'X';
  } catch {
    return true;
  }
}

/** A pinned server installed (or found in the cache), as a requirement `needs` reads. */
export async function installed(
  pkg: PinnedServer,
): Promise<{ server: InstalledServer; requirement: Requirement }> {
  const server = await installServer(pkg);
  return {
    server,
    requirement: {
      what: `${pkg.name}@${pkg.version} installed from the npm registry`,
      present: server.ok,
      install: server.ok ? '' : `reach the npm registry (${server.reason})`,
    },
  };
}
