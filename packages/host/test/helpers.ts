// Test helpers: an inline workspace (real binaries: echo, touch, sh) and a fresh instance.
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { openStoreTarget, type Store } from '@harness/store';
import { tempDir } from '@harness/test-utils';
import { type CommandHost, createCommandHost } from '../src/host';
import { initInstance, readInstance } from '../src/instance';
import { loadPackBackend } from '../src/packs-backend';
import { resolveScope, type ScopeFile } from '../src/scope';

/** A workspace with read, write, strict and labelled commands, and two agents. */
export const WORKSPACE_YAML = `version: 1
command_packs:
  - id: text
    permission: cautious
    permission_overrides:
      shout: strict
    commands:
      - id: echo
        argv: [echo, '{{message}}']
        effects: read
      - id: touch
        argv: [touch, '--', '{{file}}']
        effects: write
      - id: shout
        argv: [echo, '{{message}}']
        effects: write
      - id: fail
        argv: [sh, '-c', 'echo broken >&2; exit 3']
        effects: read
  - id: vault
    label:
      confidentiality: [secret]
    commands:
      - id: peek
        argv: [echo, 'peek']
        effects: read
  - id: creds
    credentials_ref: api_token
    env:
      API_TOKEN: '{{credential.api_token}}'
    commands:
      - id: show
        argv: [sh, '-c', 'echo "token=$API_TOKEN"']
        effects: read
agents:
  - id: reader
    grants: [pack:text]
  - id: editor
    grants: [pack:text, text.touch, text.shout, pack:vault, pack:creds]
`;

/** A fresh temp dir with `workspace.yaml` written and an instance initialised at `<tmp>/instance`. */
export async function freshInstance(): Promise<{
  root: string;
  instance: string;
  workspace: string;
  cleanup: () => void;
}> {
  const t = tempDir('host-test-');
  const workspace = join(t.path, 'workspace.yaml');
  writeFileSync(workspace, WORKSPACE_YAML);
  const instance = join(t.path, 'instance');
  await initInstance(instance, workspace);
  return { root: t.path, instance, workspace, cleanup: t.cleanup };
}

/** An in-process command host over a real instance, workspace and store. */
export async function hostFor(
  instance: string,
  scope: ScopeFile,
  approvalTtlMs?: number,
): Promise<{ host: CommandHost; store: Store }> {
  const info = readInstance(instance);
  const { backend, scopeWorkspace } = await loadPackBackend(info.workspaceFile, info.dir);
  const store = await openStoreTarget(info.store);
  const host = createCommandHost({
    store,
    scope: resolveScope(scope, scopeWorkspace),
    packs: backend,
    ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
  });
  return { host, store };
}

/**
 * An in-process command host over a store a test opened, serving the packs of `workspaceFile`. No
 * instance: its pack commands would run without a running log (the Loom built-ins need none).
 */
export async function hostOver(store: Store, scope: ScopeFile, workspaceFile: string): Promise<CommandHost> {
  const { backend, scopeWorkspace } = await loadPackBackend(workspaceFile);
  return createCommandHost({ store, scope: resolveScope(scope, scopeWorkspace), packs: backend });
}

/**
 * Sends raw text on one new connection to a broker socket and collects `n` answer lines; the
 * socket is destroyed once they arrived (and is passed to `track` so a test can destroy it early).
 */
export function rawLines(
  path: string,
  text: string | Buffer,
  n: number,
  track?: (socket: Socket) => void,
): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    track?.(s);
    let buf = '';
    const out: Record<string, unknown>[] = [];
    s.setEncoding('utf8');
    s.on('connect', () => s.write(text));
    s.on('data', (c: string) => {
      buf += c;
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        out.push(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
        buf = buf.slice(nl + 1);
        nl = buf.indexOf('\n');
      }
      if (out.length >= n) {
        s.destroy();
        resolve(out);
      }
    });
    s.on('error', reject);
  });
}
