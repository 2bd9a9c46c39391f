// `pnpm test:quick`: the inner loop (docs/testing.md). One vitest process runs the unit tests of
// every package, each under its own package's config: pure functions, SQLite in memory or in a temp
// file, no product binary, no browser, no socket server, at most a few child processes. The whole
// suite (`pnpm test`) runs everything else.
import { readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/** Each package's quick test files, as globs under its test/ folder (`**` = all of them). */
const QUICK: Record<string, string[]> = {
  'packages/config': ['**'],
  'packages/errors': ['**'],
  'packages/tmpl': ['**'],
  'packages/signature': ['**'],
  'packages/ifc': ['**'],
  'packages/events': ['context', 'docs', 'exports', 'extract', 'fixtures', 'patterns', 'trusted'],
  'packages/protocol': ['exports', 'framing', 'parse', 'schema', 'version'],
  'packages/commands': ['artifacts', 'config', 'exports', 'outcome', 'result-text'],
  'packages/packs': ['examples', 'preview', 'redaction.prop', 'render', 'requirements', 'units'],
  'packages/workspace': ['check-messages', 'governance', 'grants', 'load'],
  'packages/runner': [
    'claims',
    'docs',
    'exports',
    'load',
    'metrics',
    'observe',
    'schedule',
    'store',
    'tools',
  ],
  'packages/store': ['store', 'compose', 'store-bounds', 'compose-audit'],
  'packages/host': ['approval-gate', 'scope', 'validate'],
  'packages/exec': ['argv.prop', 'output'],
  'apps/console': ['approval-outcome', 'approval-plan', 'tasks-model', 'tasks-results', 'sessions'],
};

/**
 * The package's other test files. A project extends its package's config, whose `include` it can
 * only add to, so the quick set is that include minus these.
 */
function slowFiles(root: string, files: string[]): string[] {
  if (files.includes('**')) return [];
  const quick = new Set(files.map((f) => `${f}.test.ts`));
  return readdirSync(`${root}/test`)
    .filter((name) => name.endsWith('.test.ts') && !quick.has(name))
    .map((name) => `test/${name}`);
}

export default defineConfig({
  test: {
    projects: Object.entries(QUICK).map(([root, files]) => ({
      extends: `./${root}/vitest.config.ts`,
      test: {
        name: root.slice(root.indexOf('/') + 1),
        root,
        exclude: slowFiles(root, files),
      },
    })),
  },
});
