// What an approval request records for the person who judges it: the values, the argv the call
// would run, the tier, the agent and the run; never a credential. Real workspace, store and host.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initInstance } from '../src/instance';
import { hostFor } from './helpers';

const WORKSPACE = `version: 1
command_packs:
  - id: files
    permission: strict
    commands:
      - id: touch
        argv: [touch, '--', '{{file}}']
        effects: write
  - id: tok
    permission: strict
    credentials_ref: api_token
    env:
      API_TOKEN: '{{credential.api_token}}'
    commands:
      - id: say
        argv: [echo, 'said:{{word}}']
        effects: read
agents:
  - id: editor
    grants: [files.touch, pack:tok]
`;

let dir: ReturnType<typeof tempDir>;
let instance: string;
beforeEach(async () => {
  dir = tempDir('host-approvals-');
  writeFileSync(join(dir.path, 'workspace.yaml'), WORKSPACE);
  instance = join(dir.path, 'instance');
  await initInstance(instance, join(dir.path, 'workspace.yaml'));
});
afterEach(() => dir.cleanup());

describe('an approval request records what a person judges', () => {
  it('keeps the values and the argv apart for two calls that differ only in a value', async () => {
    const { host, store } = await hostFor(instance, { run: 'run-9', agent: 'editor' });
    try {
      for (const file of ['new.txt', '../../escape.txt']) {
        const a = await host.run({ op: 'run', command: 'files.touch', args: { file } });
        expect(a).toMatchObject({ ok: false, reason: 'approval_required' });
      }
      const pending = (await store.listApprovals()).map((r) => ({
        command: r.command,
        args: r.args,
        argv: r.argv,
        tier: r.tier,
        agent: r.agent,
        run: r.run,
      }));
      expect(pending).toEqual([
        {
          command: 'files.touch',
          args: { file: '../../escape.txt' },
          argv: ['touch', '--', '../../escape.txt'],
          tier: 'strict',
          agent: 'editor',
          run: 'run-9',
        },
        {
          command: 'files.touch',
          args: { file: 'new.txt' },
          argv: ['touch', '--', 'new.txt'],
          tier: 'strict',
          agent: 'editor',
          run: 'run-9',
        },
      ]);
    } finally {
      await store.close();
    }
  });

  it('replaces a credential value by the marker before it is stored', async () => {
    writeFileSync(join(instance, 'credentials.json'), JSON.stringify({ api_token: 'tok-SUPERSECRET-1' }), {
      mode: 0o600,
    });
    const { host, store } = await hostFor(instance, { run: 'run-9', agent: 'editor' });
    try {
      await host.run({ op: 'run', command: 'tok.say', args: { word: 'x-tok-SUPERSECRET-1' } });
      const [rec] = await store.listApprovals();
      expect(rec).toMatchObject({ args: { word: 'x-[redacted]' }, argv: ['echo', 'said:x-[redacted]'] });
    } finally {
      await store.close();
    }
    // Closing checkpoints the write-ahead log into the file: every byte stored is in it.
    const bytes = readFileSync(join(instance, 'loom.db')).toString('latin1');
    expect(bytes).toContain('said:x-[redacted]');
    expect(bytes).not.toContain('SUPERSECRET');
  });

  it('records no argv when the call would not render, and still its values', async () => {
    const { host, store } = await hostFor(instance, { run: 'run-9', agent: 'editor' });
    try {
      // A leading dash is refused at render, even after `--`, unless the input allows it.
      await host.run({ op: 'run', command: 'files.touch', args: { file: '-rf' } });
      const [rec] = await store.listApprovals();
      expect(rec && { args: rec.args, argv: rec.argv }).toEqual({ args: { file: '-rf' }, argv: null });
    } finally {
      await store.close();
    }
  });
});
