// harness serve picks up an edited workspace file: the real bin over stdio, driven by the real MCP
// SDK client, on an embedded instance created with a workspace the test writes and then edits.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFile } from '@harness/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, get, runCli, sandbox, structured } from './helpers';

const WORKSPACE = `version: 1
command_packs:
  - id: text
    sandbox: false
    commands:
      - id: echo
        argv: [echo, '{{message}}']
        effects: read
agents:
  - id: demo
    grants: [pack:text]
`;

const EDITED = WORKSPACE.replace(
  '        effects: read\n',
  `        effects: read
      - id: hello
        argv: [echo, hello from the edit]
        effects: read
`,
);

const box = sandbox();
const workspace = join(box.root, 'workspace.yaml');
let conn: Awaited<ReturnType<typeof connectStdio>>;

const sha12 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 12);

/** The first stderr line that holds `text`, once serve has written it. */
async function stderrLine(text: string): Promise<string | undefined> {
  const log = await conn.stderrWith(text);
  return log.split('\n').find((line) => line.includes(text));
}

async function commandNames(): Promise<string[]> {
  const listed = structured(await conn.client.callTool({ name: 'list_commands', arguments: {} }));
  expect(listed.status).toBe('ok');
  return (listed.entries as { name: string }[]).map((e) => e.name);
}

beforeAll(async () => {
  writeFileSync(workspace, WORKSPACE);
  conn = await connectStdio(['--instance', box.instance, '--workspace', workspace], box.home);
});
afterAll(async () => {
  await conn?.close();
  box.cleanup();
});

describe('harness serve follows its workspace file', () => {
  it('serves an edit that adds a command once a person accepts it: stderr says it switched, list_commands shows it, run_read_command runs it', async () => {
    // The first call waits for the embedded host, so the edit below is made on a running broker.
    expect(await commandNames()).not.toContain('text.hello');
    replaceFile(workspace, EDITED);

    // A new command widens what the agent may do: it waits for a person (workspace.test.ts).
    expect(await stderrLine('widens what agents may do')).toContain(
      `harness workspace accept --hash ${sha12(EDITED)} --instance ${box.instance}`,
    );
    const accepted = await runCli(
      ['workspace', 'accept', '--hash', sha12(EDITED), '--instance', box.instance],
      {
        home: box.home,
      },
    );
    expect(accepted.code).toBe(0);
    expect(await stderrLine('switched to the workspace')).toBe(
      `harness broker: switched to the workspace ${workspace} a person accepted (sha256 ${sha12(EDITED)}, was ${sha12(WORKSPACE)}): 2 pack command(s) for agent:demo; calls already running finish on the old one`,
    );
    expect(await commandNames()).toEqual(expect.arrayContaining(['text.echo', 'text.hello']));
    const ran = await conn.client.callTool({
      name: 'run_read_command',
      arguments: { command: 'text.hello', args: {} },
    });
    expect(structured(ran).status).toBe('executed');
    expect(get(ran, 'content', 0, 'text')).toBe('hello from the edit\n[text.hello: ok, exit 0]');
  });

  it('keeps the commands it serves after an edit that does not load, and says how to see every error', async () => {
    const broken = EDITED.replace('grants: [pack:text]', 'grants: [pack:txet]');
    writeFileSync(workspace, broken);

    expect(await stderrLine('cannot be served')).toBe(
      `harness broker: warning: the edited workspace ${workspace} (sha256 ${sha12(broken)}) cannot be served, so the old one (sha256 ${sha12(EDITED)}) is still served: ${workspace}:14:14: agent "demo": grant "pack:txet" matches no pack (did you mean "pack:text"?); packs: text; see every error with: harness packs check ${workspace}`,
    );
    const ran = await conn.client.callTool({
      name: 'run_read_command',
      arguments: { command: 'text.hello', args: {} },
    });
    expect(structured(ran).status).toBe('executed');
    expect(get(ran, 'content', 0, 'text')).toBe('hello from the edit\n[text.hello: ok, exit 0]');
    expect(await commandNames()).toEqual(expect.arrayContaining(['text.echo', 'text.hello']));
  });
});
