// previewPackCall: the argv a call would run, rendered as the runner renders it, never run.
import { describe, expect, it } from 'vitest';
import { credentialsFrom, previewPackCall } from '../src/index';
import { loadOk } from './helpers';

const WORKSPACE = `command_packs:
  - id: p
    credentials_ref: tok
    env:
      TOKEN: '{{credential.tok}}'
    commands:
      - id: touch
        argv: [touch, '-n{{count}}', '--', 'dir/{{file}}']
        effects: write
        inputs:
          file: { type: string }
          count: { type: integer }
`;

describe('previewPackCall', () => {
  it('renders the argv from the frozen template with the values as given', async () => {
    const ws = await loadOk(WORKSPACE, { credentials: credentialsFrom({ tok: 'T0K-SECRET' }) });
    expect(previewPackCall(ws, 'p.touch', { file: 'a b.txt', count: 3 })).toMatchObject({
      args: { file: 'a b.txt', count: 3 },
      argv: ['touch', '-n3', '--', 'dir/a b.txt'],
      issues: [],
    });
  });

  it('replaces a credential value in the values and the argv by [redacted]', async () => {
    const credentials = credentialsFrom({ tok: 'T0K-SECRET' });
    const ws = await loadOk(WORKSPACE, { credentials });
    const shown = previewPackCall(ws, 'p.touch', { file: 'x-T0K-SECRET', count: 1 }, { credentials });
    expect(shown).toMatchObject({
      args: { file: 'x-[redacted]', count: 1 },
      argv: ['touch', '-n1', '--', 'dir/x-[redacted]'],
      issues: [],
    });
    expect(JSON.stringify(shown.plan)).not.toContain('T0K-SECRET');
  });

  it('gives no argv, and says why, for a value the runner would refuse', async () => {
    const ws = await loadOk(WORKSPACE, { credentials: credentialsFrom({ tok: 'T0K-SECRET' }) });
    const shown = previewPackCall(ws, 'p.touch', { file: 5, count: 1 });
    expect(shown.argv).toBeNull();
    expect(shown.issues.map((i) => [i.code, i.message])).toEqual([
      ['invalid_args', 'p.touch: argument "file" expected a string, found number'],
    ]);
  });

  it('gives the plan an approval binds: the argv, the program it resolves to, the env names (no values), the cwd and the sandbox', async () => {
    const ws = await loadOk(WORKSPACE, { credentials: credentialsFrom({ tok: 'T0K-SECRET' }) });
    const { plan } = previewPackCall(ws, 'p.touch', { file: 'a.txt', count: 1 });
    expect(plan).toMatchObject({
      command: 'p.touch',
      argv: ['touch', '-n1', '--', 'dir/a.txt'],
      executable: expect.stringMatching(/\/touch$/),
      env: ['TOKEN'],
      pack: 'p',
    });
    expect(plan?.cwd).toBe(ws.packs[0]?.cwd);
    expect(previewPackCall(ws, 'p.nope', {}).plan).toBeNull();
  });
});
