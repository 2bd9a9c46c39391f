// Where no sandbox works (no bubblewrap on PATH), `harness serve` says once on stderr that the
// commands run unconfined, in the words `packs check` uses, and list_commands' notice says it too.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { needs, sandboxMechanism } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { connectStdio, pathWithout, runCli, sandbox, structured } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());

const workspace = (): string => {
  const file = join(box.root, 'ws.yaml');
  writeFileSync(
    file,
    'version: 1\ncommand_packs:\n  - id: echo\n    commands:\n      - id: argv\n        argv: [echo, "{{value}}"]\n        inputs: { value: { pattern: "^[^-]" } }\n        effects: read\nagents:\n  - id: me\n    grants: [pack:echo]\n',
  );
  return file;
};

describe('serve where the commands run unconfined', () => {
  it('says so once on stderr, as packs check words it, and the list_commands notice says it too [SEC-14]', async () => {
    const path = pathWithout(join(box.root, 'bin-without-bwrap'), ['bwrap']);
    const ws = workspace();
    const checked = await runCli(['packs', 'check', ws], { home: box.home, env: { PATH: path } });
    const message = `sandbox_mode preferred: bubblewrap (bwrap) was not found on PATH (${path}), so the commands of pack echo run unconfined; to confine them: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)`;
    expect(checked.stdout).toBe(
      `warning: ${ws}:1:1: ${message}\nok: ${ws}: 1 pack(s), 1 agent(s)\n  agent me: echo.argv\n`,
    );

    const instance = join(box.root, 'instance-no-bwrap');
    const serve = await connectStdio(['--instance', instance, '--workspace', ws, '--agent', 'me'], box.home, {
      PATH: path,
    });
    try {
      for (let i = 0; i < 2; i++) {
        const listing = structured(await serve.client.callTool({ name: 'list_commands', arguments: {} }));
        expect(String(listing.notice).endsWith(`. ${message}`), String(listing.notice)).toBe(true);
      }
      const ran = structured(
        await serve.client.callTool({
          name: 'run_read_command',
          arguments: { command: 'echo.argv', args: { value: 'unconfined' } },
        }),
      );
      expect(ran.status).toBe('executed');
      const log = await serve.stderrWith('run unconfined');
      expect(log.split('\n').filter((line) => line.includes('run unconfined'))).toEqual([
        `harness: warning: ${ws}:1:1: ${message}`,
      ]);
    } finally {
      await serve.close();
    }
  });

  needs(sandboxMechanism(detectSandbox())).it(
    'adds nothing to the list_commands notice where bubblewrap confines the commands [SEC-14]',
    async () => {
      const serve = await connectStdio(
        ['--instance', join(box.root, 'instance-confined'), '--workspace', workspace(), '--agent', 'me'],
        box.home,
      );
      try {
        const listing = structured(await serve.client.callTool({ name: 'list_commands', arguments: {} }));
        expect(String(listing.notice)).not.toContain('unconfined');
        expect(String(listing.notice)).toMatch(/continues in list_commands\(\{ detail: \[name\] \}\)\.$/);
      } finally {
        await serve.close();
      }
    },
  );
});
