// harness serve on a workspace that does not load at start: the real bin ends before it answers
// anything, with every load error on stderr, so the MCP client that started it shows it failed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectStdio, runCli, sandbox, slowWorkspace, structured } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());

const BROKEN =
  'version: 1\ncommand_packs:\n  - id: bad.pack\n    commands:\n      - id: run\n        argv: [ls]\n        effects: sideways\nagents: []\n';

// What an MCP client sends first; a serve that ends before it answers leaves stdout empty.
const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
})}\n`;

const NOTHING_SERVED = 'harness: nothing served; fix the cause and start serve again';
const KEEP_GOING_HINT =
  'or pass --keep-going to serve anyway (every call then answers host_unavailable with the reason)';

/** The lines serve prints for the BROKEN workspace at `file`. */
const brokenLines = (file: string): string =>
  `harness: the embedded host cannot start: the workspace ${file} does not load:\n${file}:3:9: command_packs[0].id: expected a pack id matching [a-z0-9][a-z0-9_-]* (lowercase letters, digits, - and _), found "bad.pack"; e.g. id: dev\n${file}:7:18: command_packs[0].commands[0].effects: expected effects read or write, found "sideways"; e.g. effects: read\n`;

/** A copy of the slow fixture workspace at `name`, with `grants` for its agent. */
function slowCopy(name: string, grants: string): string {
  const file = join(box.root, name);
  const text = readFileSync(slowWorkspace, 'utf8').replace('grants: [pack:slow, pack:echo]', grants);
  writeFileSync(file, text);
  return file;
}

describe('harness serve on a workspace that does not load', () => {
  it('ends over stdio with exit 3 before answering initialize, printing each load error as file:line:column', async () => {
    const workspace = join(box.root, 'bad.yaml');
    writeFileSync(workspace, BROKEN);
    const instance = join(box.root, 'never');
    const r = await runCli(['serve', '--instance', instance, '--workspace', workspace], {
      home: box.home,
      input: INITIALIZE,
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${brokenLines(workspace)}${NOTHING_SERVED}, ${KEEP_GOING_HINT}\n`);
    expect(existsSync(instance)).toBe(false);
  });

  it('ends with exit 3 when the workspace of an existing instance broke while nothing served it', async () => {
    const workspace = slowCopy('broke-later.yaml', 'grants: [pack:slow, pack:echo]');
    const instance = join(box.root, 'broke-later');
    const created = await runCli(
      ['call', 'list_commands', '--instance', instance, '--workspace', workspace],
      {
        home: box.home,
      },
    );
    expect(created.code, created.stderr).toBe(0);
    writeFileSync(workspace, BROKEN);
    const r = await runCli(['serve', '--instance', instance], { home: box.home, input: INITIALIZE });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${brokenLines(workspace)}${NOTHING_SERVED}, ${KEEP_GOING_HINT}\n`);
  });

  it('ends over HTTP with exit 3 before listening, with the same lines and no --keep-going hint', async () => {
    const workspace = join(box.root, 'bad-http.yaml');
    writeFileSync(workspace, BROKEN);
    const r = await runCli(
      [
        'serve',
        '--http',
        '127.0.0.1:0',
        '--instance',
        join(box.root, 'never-http'),
        '--workspace',
        workspace,
      ],
      { home: box.home },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`${brokenLines(workspace)}${NOTHING_SERVED}\n`);
  });

  it('refuses --keep-going over HTTP as a usage error, exit 2', async () => {
    const r = await runCli(['serve', '--http', '127.0.0.1:0', '--keep-going'], { home: box.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'harness: --keep-going serves over stdio only: over HTTP the host starts before serve listens (the token it generates lives in its instance directory), so a host that cannot start always ends serve; drop --keep-going\n',
    );
  });
});

describe('harness serve on a workspace held for a person to accept', () => {
  it('serves the accepted content: a widening edit is not a workspace that does not load', async () => {
    const workspace = slowCopy('held.yaml', 'grants: [pack:slow]');
    const instance = join(box.root, 'held');
    const created = await runCli(
      ['call', 'list_commands', '--instance', instance, '--workspace', workspace],
      {
        home: box.home,
      },
    );
    expect(created.code, created.stderr).toBe(0);
    writeFileSync(workspace, readFileSync(slowWorkspace, 'utf8'));
    const conn = await connectStdio(['--instance', instance], box.home);
    try {
      const listed = structured(await conn.client.callTool({ name: 'list_commands', arguments: {} }));
      const ids = JSON.stringify(listed);
      expect(ids).toContain('slow.wait');
      expect(ids).not.toContain('echo.argv');
      expect(conn.stderr()).toContain('is still served until a person accepts the edit');
    } finally {
      await conn.close();
    }
  });
});
