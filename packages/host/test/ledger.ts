// A workspace whose write command is a real `sh` appending each call's id to a ledger file: the
// ledger's lines are the writes that ran, counted by tests that drive broker processes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Pack `w` of a ledger workspace and the grants of its agent `writer`. */
export interface LedgerPack {
  /** The pack's settings as YAML, without indentation (`permission: open\ntimeout: 30s`). */
  settings: string;
  /** The write command `w.<id>`: its `id` input must match `pattern`; `after` is shell run after the append. */
  write: { id: string; pattern: string; after?: string };
  /** Further commands of the pack as YAML list items, without indentation. */
  more?: string;
  /** The grants of agent `writer`, as a YAML flow list (`[w.touch]`). */
  grants: string;
}

const indent = (yaml: string, by: number) =>
  yaml
    .split('\n')
    .map((line) => `${' '.repeat(by)}${line}`)
    .join('\n');

/** Writes `workspace.yaml` (sandbox off) under `dir` and returns its path and the ledger's; the first write creates the ledger. */
export function writeLedgerWorkspace(dir: string, pack: LedgerPack): { workspace: string; ledger: string } {
  const ledger = join(dir, 'ledger.txt');
  const workspace = join(dir, 'workspace.yaml');
  const { id, pattern, after = '' } = pack.write;
  const write = `- id: ${id}
  argv: [sh, -c, 'echo "$1" >> "$2"${after}', sh, '{{id}}', '${ledger}']
  inputs:
    id: { type: string, pattern: '${pattern}' }
  effects: write`;
  writeFileSync(
    workspace,
    `version: 1
command_packs:
  - id: w
    sandbox: false
${indent(pack.settings, 4)}
    commands:
${indent(pack.more === undefined ? write : `${write}\n${pack.more}`, 6)}
agents:
  - id: writer
    grants: ${pack.grants}
`,
  );
  return { workspace, ledger };
}
