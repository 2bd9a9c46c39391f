import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@harness/test-utils';
import { afterAll, describe, expect, it, vi } from 'vitest';

const page = readFileSync(join(repoRoot, 'docs', 'events.md'), 'utf8');
const example = page.slice(page.indexOf('## Example'));
const code = example.match(/```ts\n([\s\S]*?)```/)?.[1] ?? '';
const output = example.match(/Output:\n\n```text\n([\s\S]*?)```/)?.[1] ?? '';
const file = join(import.meta.dirname, `.docs-example-${process.pid}.ts`);

afterAll(() => rmSync(file, { force: true }));

describe('docs/events.md', () => {
  it('runs the example and prints the documented output', async () => {
    expect(code).toContain("from '@harness/events'");
    // The page imports by package name and reads from the repository root; point both at this checkout.
    const runnable = code
      .replace("'@harness/events'", JSON.stringify(join(import.meta.dirname, '..', 'src', 'index.ts')))
      .replace("'fixtures/", `'${repoRoot}/fixtures/`);
    writeFileSync(file, runnable);
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      lines.push(args.join(' '));
    });
    try {
      await import(/* @vite-ignore */ file);
    } finally {
      spy.mockRestore();
    }
    expect(`${lines.join('\n')}\n`).toBe(output);
  });

  it('leads with {{event.file}}', () => {
    const firstPlaceholder = page.match(/\{\{[^}]+\}\}/)?.[0];
    expect(firstPlaceholder).toBe('{{event.file}}');
  });
});
