// An agent's `builtins`: whether the host's loom.* built-ins are offered to it.
import { describe, expect, it } from 'vitest';
import { loadErrors, loadOk } from './helpers';

const file = (builtins: string) => `command_packs:
  - id: t
    commands:
      - { id: hello, argv: [echo, hi], effects: read }
agents:
  - id: coder
${builtins}    grants: [pack:t]
`;

describe('an agent’s builtins', () => {
  it('is true unless the agent says false', async () => {
    expect((await loadOk(file(''))).agents[0]?.builtins).toBe(true);
    expect((await loadOk(file('    builtins: false\n'))).agents[0]?.builtins).toBe(false);
  });

  it('refuses a value that is not true or false, naming the line', async () => {
    expect(await loadErrors(file('    builtins: "no"\n'))).toEqual([
      'workspace.yaml:7:15: agents[0].builtins: expected builtins: true or false, found "no"; e.g. agents: [{ id: me, grants: ["pack:dev"] }]',
    ]);
  });
});
