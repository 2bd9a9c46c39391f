// The rows `harness doctor --runner-config <file>` adds: the runner file loads, each source's secret
// variable is set, each agent executable is on PATH, and a warn row per harness with untrusted_inline.
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { ADAPTERS, type AgentKind, formatRunnerIssue, loadRunnerConfig } from '@harness/runner';

/** One doctor row. */
export interface RunnerCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

function onPath(exe: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    try {
      accessSync(join(dir, exe), constants.X_OK);
      return join(dir, exe);
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The runner rows of `doctor` for one runner file. */
export function runnerChecks(file: string, env: NodeJS.ProcessEnv = process.env): RunnerCheck[] {
  const loaded = loadRunnerConfig({ file: resolve(file) });
  if (!loaded.ok) {
    const first = loaded.issues[0];
    const more =
      loaded.issues.length > 1 ? ` (and ${loaded.issues.length - 1} more; run harness runner check)` : '';
    return [
      { name: 'runner config', status: 'fail', detail: `${first ? formatRunnerIssue(first) : file}${more}` },
    ];
  }
  const { config } = loaded;
  const rows: RunnerCheck[] = [
    { name: 'runner config', status: 'ok', detail: `${config.file}: ${config.harnesses.length} harness(es)` },
  ];
  for (const s of config.sources) {
    const set = (env[s.secretEnv] ?? '') !== '';
    rows.push({
      name: `runner secret ${s.id}`,
      status: set ? 'ok' : 'warn',
      detail: set
        ? `${s.secretEnv} is set`
        : `${s.secretEnv} is not set: runner start refuses to start without it`,
    });
  }
  const kinds = new Set(config.harnesses.map((h) => h.kind).filter((k): k is AgentKind => k in ADAPTERS));
  for (const kind of kinds) {
    const exe = ADAPTERS[kind].exe;
    const found = onPath(exe, env.PATH);
    rows.push({
      name: `runner ${exe}`,
      status: found ? 'ok' : 'warn',
      detail: found ?? `${exe} not found on PATH: ${kind} harnesses will fail to start`,
    });
  }
  for (const h of config.harnesses.filter((x) => x.untrustedInline)) {
    rows.push({
      name: 'runner untrusted_inline',
      status: 'warn',
      detail: `harness ${h.id} may put free text from events in its prompt (inside the untrusted fence); prefer {{event.file}}`,
    });
  }
  return rows;
}
