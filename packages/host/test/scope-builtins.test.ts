// An agent's `builtins: false` in the workspace: the host's loom.* built-ins are not offered to it,
// whatever its scope asks (the workspace narrows a scope, never the reverse).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPackBackend } from '../src/packs-backend';
import { resolveScope } from '../src/scope';

const box = tempDir('host-builtins-');
afterAll(() => box.cleanup());

const workspace = (builtins: string) => {
  const file = join(box.path, `ws-${builtins.length}.yaml`);
  writeFileSync(
    file,
    `command_packs:
  - id: t
    commands:
      - { id: hello, argv: [echo, hi], effects: read }
agents:
  - id: coder
${builtins}    grants: [pack:t]
`,
  );
  return file;
};

describe('the loom built-ins an agent is offered', () => {
  it('are none for an agent the workspace declares with builtins: false, even when its scope lists them', async () => {
    const { scopeWorkspace } = await loadPackBackend(workspace('    builtins: false\n'));
    const scope = resolveScope({ run: 'r', agent: 'coder', builtins: ['loom.inspect'] }, scopeWorkspace);
    expect([...scope.builtins]).toEqual([]);
    expect([...scope.commands]).toEqual(['t.hello']);
  });

  it('are every built-in by default, as before', async () => {
    const { scopeWorkspace } = await loadPackBackend(workspace(''));
    expect([...resolveScope({ run: 'r', agent: 'coder' }, scopeWorkspace).builtins]).toEqual([
      'loom.compose',
      'loom.inspect',
      'loom.authoring-context',
    ]);
  });
});
