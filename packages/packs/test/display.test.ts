// A command's `display` line and `preview` (docs/packs.md, "Display and preview"): checked at load
// against the command's inputs and its pack's read commands, rendered with a call's values escaped
// so they cannot fake the line's structure, and the preview run for real, bounded, its failure a
// line and never a refusal.
import { describe, expect, it } from 'vitest';
import { credentialsFrom, previewPackCall, runCommandPreview } from '../src/index';
import { loadErrors, loadOk, onePack } from './helpers';

const COMMIT = `      - id: commit
        argv: [echo, '--message={{message}}']
        display: 'git commit --message "{{message}}"'
        effects: write
`;

describe('display at load', () => {
  it('refuses a display line naming an input the command does not have, listing the ones it has', async () => {
    const errors = await loadErrors(
      onePack(`      - id: commit
        argv: [echo, '--message={{message}}']
        display: 'git commit --message "{{mesage}}"'
        effects: write
`),
    );
    expect(errors).toEqual([
      expect.stringContaining(
        'command_packs[0].commands[0].display: display names {{mesage}}, which is no input of p.commit; expected one of message',
      ),
    ]);
  });

  it('refuses a placeholder that is not {{name}} or {{name?}}', async () => {
    const errors = await loadErrors(
      onePack(`      - id: commit
        argv: [echo, '{{message}}']
        display: 'git commit {{credential.tok}}'
        effects: write
`),
    );
    expect(errors.join('\n')).toContain(
      'expected {{name}} or {{name?}} naming an input; found {{credential.tok}}',
    );
  });
});

describe('preview at load', () => {
  it('refuses a preview naming a write command of the pack: a preview runs only a read command', async () => {
    const errors = await loadErrors(
      onePack(`      - id: commit
        argv: [echo, '{{message}}']
        preview: { command: push }
        effects: write
      - id: push
        argv: [echo, push]
        effects: write
      - id: staged
        argv: [echo, staged]
        effects: read
`),
    );
    expect(errors).toEqual([
      expect.stringContaining(
        'command_packs[0].commands[0].preview.command: preview names "push", a write command; a preview runs only a read command (effects: read) of pack p: staged',
      ),
    ]);
  });

  it('refuses a preview naming no command of the pack, and an argument the read command does not take', async () => {
    const unknown = await loadErrors(
      onePack(`      - id: commit
        argv: [echo, '{{message}}']
        preview: { command: stagged }
        effects: write
      - id: staged
        argv: [echo, staged]
        effects: read
`),
    );
    expect(unknown.join('\n')).toContain(
      'preview names "stagged", which is no command of pack p; expected one of its read commands: staged',
    );
    const badArg = await loadErrors(
      onePack(`      - id: commit
        argv: [echo, '{{message}}']
        preview: { command: staged, args: { path: '{{file}}' } }
        effects: write
      - id: staged
        argv: [echo, '{{path}}']
        effects: read
`),
    );
    expect(badArg.join('\n')).toContain(
      'preview.args.path: takes {{file}} from the call, which is no input of p.commit; expected one of message',
    );
  });
});

describe('the display line of a call', () => {
  it("renders the call's values inside the author's quotes, escaping a quote and a newline so neither ends the line's structure", async () => {
    const ws = await loadOk(onePack(COMMIT));
    expect(previewPackCall(ws, 'p.commit', { message: 'Fix it' }).display).toBe(
      'git commit --message "Fix it"',
    );
    expect(previewPackCall(ws, 'p.commit', { message: 'x" --amend\nrm -rf /\u202e' }).display).toBe(
      'git commit --message "x\\" --amend\\nrm -rf /\\u202e"',
    );
  });

  it('quotes a value outside quotes unless it is a plain word, shows values mapped by values, and cuts a long value', async () => {
    const ws = await loadOk(
      onePack(`      - id: push
        argv: [echo, '--{{force}}', '{{branch}}', '{{note?}}']
        display: 'git push --{{force}} {{branch}} {{note?}}'
        inputs:
          force: { type: boolean, default: false }
          branch: { type: string }
          note: { type: string }
        values:
          force: { "true": force, "false": no-force }
        effects: write
`),
    );
    expect(previewPackCall(ws, 'p.push', { branch: 'main' }).display).toBe('git push --no-force main');
    expect(previewPackCall(ws, 'p.push', { branch: 'a b', force: true }).display).toBe(
      'git push --force "a b"',
    );
    expect(previewPackCall(ws, 'p.push', { branch: 'main', note: '' }).display).toBe(
      'git push --no-force main ""',
    );
    const long = previewPackCall(ws, 'p.push', { branch: 'b'.repeat(300) }).display;
    expect(long).toBe(`git push --no-force ${'b'.repeat(120)}…(+180 chars)`);
  });

  it('replaces a credential value by [redacted], and is null for a command with no display', async () => {
    const credentials = credentialsFrom({ tok: 'T0K-SECRET' });
    const ws = await loadOk(
      onePack(
        `${COMMIT}      - id: plain
        argv: [echo, '{{x}}']
        effects: write
`,
        `    credentials_ref: tok
    env: { TOKEN: '{{credential.tok}}' }
`,
      ),
      { credentials },
    );
    expect(previewPackCall(ws, 'p.commit', { message: 'T0K-SECRET' }, { credentials }).display).toBe(
      'git commit --message "[redacted]"',
    );
    expect(previewPackCall(ws, 'p.plain', { x: 'y' }).display).toBeNull();
  });
});

describe('running a preview', () => {
  const withPreview = (read: string, args = '') =>
    onePack(`      - id: commit
        argv: [echo, '{{message}}']
        preview: { command: peek${args} }
        effects: write
      - id: peek
${read}        effects: read
        sandbox: false
`);

  it('runs the read command with arguments from the call and keeps its first 40 lines', async () => {
    const ws = await loadOk(
      withPreview(
        `        argv: [seq, '{{count}}']
        inputs: { count: { type: string } }
`,
        `, args: { count: '{{message}}' }`,
      ),
    );
    const r = await runCommandPreview(ws, 'p.commit', { message: '100' });
    expect(r).toMatchObject({ command: 'p.peek', ok: true, truncated: true });
    expect(r?.text.split('\n')).toEqual(Array.from({ length: 40 }, (_, i) => String(i + 1)));
  });

  it('cuts the output at 4 KiB', async () => {
    const ws = await loadOk(withPreview(`        argv: [head, -c, '10000', /dev/zero]\n`));
    const r = await runCommandPreview(ws, 'p.commit', { message: 'm' });
    expect(r).toMatchObject({ ok: true, truncated: true });
    expect(Buffer.byteLength(r?.text ?? '')).toBe(4096);
  });

  it('gives the failure line, not a refusal, when the read command fails', async () => {
    const ws = await loadOk(withPreview(`        argv: [sh, -c, 'echo no upstream branch >&2; exit 3']\n`));
    const r = await runCommandPreview(ws, 'p.commit', { message: 'm' });
    expect(r).toMatchObject({ command: 'p.peek', ok: false, truncated: false });
    expect(r?.text).toMatch(/^preview failed: .*no upstream branch/);
  });

  it('gives the timeout line after 5 s, and kills the read command', async () => {
    const ws = await loadOk(withPreview(`        argv: [sleep, '30']\n`));
    const started = Date.now();
    const r = await runCommandPreview(ws, 'p.commit', { message: 'm' });
    expect(r).toEqual({ command: 'p.peek', ok: false, text: 'preview timed out after 5s', truncated: false });
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 20_000);

  it('is null for a command with no preview', async () => {
    const ws = await loadOk(onePack(COMMIT));
    expect(await runCommandPreview(ws, 'p.commit', { message: 'm' })).toBeNull();
  });
});
