import { describe, expect, it } from 'vitest';
import { type PackSet, runPackCommand } from '../src/index';
import { loadOk } from './helpers';

// runPackCommand passes `onSpawn` through to @harness/exec, so the host can record each command's
// process group while it runs.

const ws: PackSet = await loadOk(`command_packs:
  - id: t
    commands:
      # Unconfined: inside a sandbox's pid namespace $$ is not the host's pid.
      - { id: pid, argv: [sh, -c, 'echo $$'], effects: read, sandbox: false }
`);

describe('RunPackOptions.onSpawn', () => {
  it('is told the pid and group of the command that runs', async () => {
    const seen: { pid: number; pgid: number }[] = [];
    const r = await runPackCommand(ws, 't.pid', {}, { onSpawn: (info) => seen.push({ ...info }) });
    if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('; '));
    const pid = Number(r.outcome.stdout.trim());
    expect(seen).toEqual([{ pid, pgid: pid }]);
  });

  it('rejects with the hook’s error when the hook throws (the group is killed, not left unrecorded)', async () => {
    const failure = new Error('no room to record the group');
    await expect(
      runPackCommand(
        ws,
        't.pid',
        {},
        {
          onSpawn: () => {
            throw failure;
          },
        },
      ),
    ).rejects.toBe(failure);
  });
});
