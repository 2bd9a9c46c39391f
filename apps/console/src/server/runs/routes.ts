// Runs: the runner's run records of the instance (status, skip and failure reasons), and the harnesses
// of the runner file named by HARNESS_RUNNER_CONFIG, each as `describe` shows it beside its entry as
// written (what the harness editor starts from and gives back unchanged but for what was edited).
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { parseYamlConfig } from '@harness/config/yaml';
import {
  describeHarness,
  formatRunnerIssue,
  HARNESS_KINDS,
  loadRunnerConfig,
  RunStore,
  runnerPaths,
} from '@harness/runner';
import type { HarnessesAnswer, RunsAnswer } from '../../answers';
import { ApiErrorCode } from '../../api-errors';
import type { RouteModule } from '../context';
import { apiError } from '../http';

/** The runner file the Runs view shows (absolute path); the console never writes it. */
export const RUNNER_CONFIG_ENV = 'HARNESS_RUNNER_CONFIG';

const STATUSES = new Set(['pending', 'running', 'succeeded', 'failed', 'skipped']);

export function runRoutes(env: Record<string, string | undefined>): RouteModule {
  return (api, ctx) => {
    api.get('/runs', (c) => {
      const harness = c.req.query('harness');
      const status = c.req.query('status');
      if (status !== undefined && !STATUSES.has(status))
        return apiError(
          c,
          400,
          ApiErrorCode.bad_request,
          `status must be one of ${[...STATUSES].join(', ')}`,
        );
      const db = runnerPaths(ctx.instanceDir).db;
      if (!existsSync(db)) return c.json({ runs: [] } satisfies RunsAnswer);
      const store = new RunStore(db);
      try {
        const runs = store
          .list(harness === undefined ? {} : { harness })
          .filter((r) => status === undefined || r.status === status)
          .reverse();
        return c.json({ runs } satisfies RunsAnswer);
      } finally {
        store.close();
      }
    });

    api.get('/runs/harnesses', (c) => {
      const file = env[RUNNER_CONFIG_ENV];
      const base = { kinds: HARNESS_KINDS, variable: RUNNER_CONFIG_ENV };
      if (file === undefined || file === '')
        return c.json({ ...base, file: null, harnesses: [] } satisfies HarnessesAnswer);
      if (!isAbsolute(file))
        return c.json({
          ...base,
          file,
          problems: [`${RUNNER_CONFIG_ENV} must be an absolute path`],
          harnesses: [],
        } satisfies HarnessesAnswer);
      const loaded = loadRunnerConfig({ file });
      if (!loaded.ok)
        return c.json({
          ...base,
          file,
          problems: loaded.issues.map(formatRunnerIssue),
          harnesses: [],
        } satisfies HarnessesAnswer);
      // The entries as written: the editor round-trips every key of them.
      const parsed = parseYamlConfig(readFileSync(file, 'utf8'));
      const written =
        parsed.ok && typeof parsed.data === 'object' && parsed.data !== null
          ? ((parsed.data as { harnesses?: Record<string, unknown>[] }).harnesses ?? [])
          : [];
      const harnesses = loaded.config.harnesses.map((h) => ({
        id: h.id,
        describe: describeHarness(h),
        entry: written.find((e) => e.id === h.id) ?? null,
      }));
      return c.json({
        ...base,
        file,
        warnings: loaded.warnings.map(formatRunnerIssue),
        harnesses,
      } satisfies HarnessesAnswer);
    });
  };
}

export const runsRoutes: RouteModule = (api, ctx) => runRoutes(process.env)(api, ctx);
