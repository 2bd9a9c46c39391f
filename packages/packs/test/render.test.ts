// renderPackCommand: the argv a call would run, shown without running it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue, renderPackCommand } from '../src/index';
import { loadOk, onePack, workDir } from './helpers';

describe('renderPackCommand', () => {
  it('shows the argv, cwd and env a call would run, each credential as a marker, and runs nothing', async () => {
    const ws = await loadOk(
      onePack(
        `      - id: touch\n        argv: [touch, --, '{{file}}']\n        inputs: { file: { allow_leading_dash: true } }\n`,
        `    credentials_ref: [token]\n    env: { TOKEN: 'Bearer {{credential.token}}', MODE: plain }\n`,
      ),
    );
    const r = renderPackCommand(ws, 'p.touch', { file: '-made-by-render' });
    expect(r).toEqual({
      ok: true,
      commandId: 'p.touch',
      argv: ['touch', '--', '-made-by-render'],
      cwd: workDir,
      env: { TOKEN: 'Bearer [credential token]', MODE: 'plain' },
    });
    expect(existsSync(join(workDir, '-made-by-render'))).toBe(false);
  });

  it('refuses what the run would refuse, with the same message', async () => {
    const ws = await loadOk(onePack(`      - id: grep\n        argv: [grep, '{{pattern}}', file.txt]\n`));
    const refused = renderPackCommand(ws, 'p.grep', { pattern: '-v' });
    expect(refused.ok ? [] : refused.issues.map(formatIssue)).toEqual([
      'p.grep: argv element 1 would start with the value of pattern, which begins with "-" and would be read as an option; put a literal prefix in the element, or (for a program that honours "--") a literal "--" element before it and allow pattern a leading dash.',
    ]);
    const unknown = renderPackCommand(ws, 'p.nope', {});
    expect(unknown.ok ? [] : unknown.issues.map(formatIssue)).toEqual([
      'unknown command "p.nope": pack "p" has the commands p.grep',
    ]);
    const bad = renderPackCommand(ws, 'p.grep', { pattern: 'x', extra: 1 });
    expect(bad.ok ? [] : bad.issues.map(formatIssue)).toEqual([
      'p.grep: argument "extra" is not an input; expected pattern',
    ]);
  });
});
