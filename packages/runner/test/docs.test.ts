// docs/runner.md is checked against the code: its first example loads as written, its matrix
// table is the matrix load applies, and its run-record table names the fields a record has.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, tempDir } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { cell, type HarnessKind, MATRIX_KEYS, RunStore } from '../src/index';
import { mustLoad } from './helpers';

const page = readFileSync(join(repoRoot, 'docs', 'runner.md'), 'utf8');

describe('docs/runner.md', () => {
  it('starts from the acceptance example, which loads as written', () => {
    const yaml = page.match(/```yaml\n([\s\S]*?)```/)?.[1] ?? '';
    expect(yaml).toContain('harnesses:');
    expect(mustLoad(yaml).harnesses.map((h) => h.id)).toEqual(['review']);
  });

  it('shows the validation matrix exactly as load applies it [TM-124]', () => {
    const columns: Record<string, HarnessKind> = {
      command: 'command',
      'claude-code, codex': 'claude-code',
      'pi, omp': 'pi',
      crush: 'crush',
      generic: 'generic',
    };
    const matrix = page.slice(page.indexOf('## The validation matrix'), page.indexOf('Rules across keys'));
    for (const key of MATRIX_KEYS) {
      const row = matrix
        .match(new RegExp(`^\\| \`${key}\` \\|(.*)\\|$`, 'm'))?.[1]
        ?.split('|')
        .map((s) => s.trim());
      expect(row, key).toBeDefined();
      const expected = Object.values(columns).map((kind) =>
        cell(key, kind) === 'forbidden' ? '—' : cell(key, kind),
      );
      expect(row, key).toEqual(expected);
    }
    for (const key of MATRIX_KEYS) {
      expect(cell(key, 'codex')).toBe(cell(key, 'claude-code'));
      expect(cell(key, 'omp')).toBe(cell(key, 'pi'));
    }
  });

  it('lists in its run-record table every field harness runs --json prints, and no other', () => {
    const dir = tempDir('runner-docs-');
    const store = new RunStore(join(dir.path, 'runs.db'));
    store.insert({ id: 'r-1', harness: 'h', status: 'pending', trigger: 'manual' });
    const record = store.get('r-1');
    store.close();
    dir.cleanup();
    const section = page.slice(page.indexOf('### Run records'), page.indexOf('A `runs.db` written by'));
    const named = [...section.matchAll(/^\| ([^|]+) \|/gm)]
      .map((m) => m[1] as string)
      .filter((cellText) => cellText !== 'field' && !cellText.startsWith('---'))
      .flatMap((cellText) => [...cellText.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));
    expect(named.sort()).toEqual(Object.keys(record ?? {}).sort());
    expect(section).toContain('| `source` | the id of the webhook source that started the run');
    expect(section).toContain('| `prompt_delivery` | how the prompt reached the program');
  });

  it('recommends file or stdin delivery for anything sensitive, since argv shows in ps [TM-102]', () => {
    expect(page).toContain(
      '**Security: prefer `file` or `stdin` for anything sensitive.** Argument values are visible to every\nuser of the machine in `ps`.',
    );
  });

  it('describes the command + transcripts fallback beside the pi and omp adapters [TM-119]', () => {
    const adapters = page.slice(page.indexOf('## Adapters'), page.indexOf('## Prompt delivery'));
    expect(adapters).toContain('| `omp` |');
    expect(adapters).toContain(
      'use a `command` harness with your own argv, and `transcripts` naming the adapter',
    );
  });
});
