// `harness packs list <file>` with no --agent, outside any project: a file that declares one agent
// is listed for that agent (it said the demo agent was not declared).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, sandbox } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());

describe('harness packs list of a workspace file with one agent', () => {
  it('lists the catalog of the file’s only agent when no --agent is given', async () => {
    const dir = join(box.root, 'ws');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'workspace.yaml');
    writeFileSync(
      file,
      `command_packs:
  - id: hello
    commands:
      - { id: say, argv: [echo, hi], effects: read }
agents:
  - id: solo
    builtins: false
    grants: [pack:hello]
`,
    );
    const r = await runCli(['packs', 'list', file, '--instance', box.instance], { home: box.home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('hello.say()  [read, global]\n(1 command(s); hidden 0, omitted 0)\n');
    expect(r.stderr).toContain('agent "solo"');
  });
});
