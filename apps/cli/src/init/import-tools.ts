// After `harness init --import` has written the workspace and credentials.json: each imported server
// started once, as `harness servers list` starts it (confined as its entry says), its tools shown
// (id, signature, the server's annotations, marked as its claim), the tools the person confirms as
// reads written into the entry's `tools:` block, and every listed definition accepted as pinned in
// the instance's store (an audit event each). A server that does not list stays as written, with
// nothing of it pinned and a line saying how to pin it later.
import { createInterface, type Interface } from 'node:readline/promises';
import type { ServerReport } from '@harness/host/internal';
import type { UpstreamTool } from '@harness/servers';
import type { Store } from '@harness/store';
import { err, out } from '../output';
import type { ImportedServer, ImportRead } from './import';

/** How the tools of the imported servers are confirmed as reads. */
export type Confirm = 'yes' | 'ask' | 'none';

/** One listed tool, as shown to the person. */
interface Listed {
  readonly id: string;
  readonly tool: UpstreamTool;
  /** Whether a person accepted this very definition before (in this instance). */
  readonly accepted: boolean;
  readonly hash: string;
}

/** What became of one imported server. */
export type ServerOutcome =
  | { readonly id: string; readonly ok: true; readonly reads: readonly ImportRead[]; readonly pinned: number }
  | { readonly id: string; readonly ok: false; readonly why: string };

/** A control character, shown escaped: no server's word moves the terminal. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** The longest annotation value shown. */
const ANNOTATION_MAX = 120;

/** `value` of the server, as one safe line. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  const escaped = text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > ANNOTATION_MAX ? `${escaped.slice(0, ANNOTATION_MAX)}…` : escaped;
}

/** The tool's one signature line, as `list_commands` renders it (without an effect: none is declared yet). */
async function signatureOf(id: string, tool: UpstreamTool): Promise<string> {
  const { renderSignature } = await import('@harness/signature');
  const properties = tool.outputSchema?.properties;
  const outputs =
    properties !== null && typeof properties === 'object' && !Array.isArray(properties)
      ? Object.keys(properties)
      : [];
  return renderSignature({
    name: id,
    inputSchema: tool.inputSchema,
    ...(outputs.length > 0 ? { outputs } : {}),
    scope: 'global',
  });
}

/** The server's annotations as one line, marked as its claim. */
function annotationsLine(tool: UpstreamTool): string {
  const a = tool.annotations;
  const entries = a !== null && typeof a === 'object' ? Object.entries(a) : [];
  if (entries.length === 0) return 'the server gives no annotations';
  return `the server claims: ${entries.map(([k, v]) => `${k.replace(CONTROL, '?')}: ${shown(v)}`).join(', ')}`;
}

const readOnlyHint = (tool: UpstreamTool): boolean => tool.annotations?.readOnlyHint === true;

/** The listed tools of a report, in the server's order, each with its id and hash. */
function listedOf(report: ServerReport): Listed[] {
  const ids = new Map<string, { id: string; hash: string; accepted: boolean }>();
  for (const t of report.tools) ids.set(t.upstream, { id: t.id, hash: t.hash, accepted: true });
  for (const q of report.quarantined) ids.set(q.upstream, { id: q.id, hash: q.hash, accepted: false });
  return (report.listing ?? []).flatMap((tool) => {
    const found = ids.get(tool.name);
    return found === undefined ? [] : [{ ...found, tool }];
  });
}

/** Why a report gives nothing to pin, or undefined when it listed its tools. */
function failureOf(report: ServerReport): string | undefined {
  if (report.listing === undefined)
    return report.error ?? report.state.error ?? `the server is ${report.state.state}`;
  return report.error;
}

/** The line of a server that gave no listing: its entry stays, nothing is pinned, how to pin it later. */
export function notListedLine(id: string, why: string): string {
  return `import: server ${id} did not list its tools (${why}); its entry stays in the workspace, and nothing of it is accepted: see why with harness servers logs ${id}, then, once it starts, harness servers review ${id} and harness servers accept ${id} --all`;
}

/**
 * Shows each imported server's tools, settles which are reads (`confirm`), and accepts every listed
 * definition in `store` (`by`, via `init`). Returns what became of each server.
 */
export async function settleTools(
  servers: readonly ImportedServer[],
  reports: readonly ServerReport[],
  store: Store,
  confirm: Confirm,
  by: string,
): Promise<ServerOutcome[]> {
  const { definitionJson } = await import('@harness/host/internal');
  const outcomes: ServerOutcome[] = [];
  const rl =
    confirm === 'ask' ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  try {
    for (const server of servers) {
      const report = reports.find((r) => r.id === server.id);
      const why = report === undefined ? 'the workspace does not load it' : failureOf(report);
      if (report === undefined || why !== undefined) {
        outcomes.push({ id: server.id, ok: false, why: why ?? 'it gave no listing' });
        out(notListedLine(server.id, why ?? 'it gave no listing'));
        continue;
      }
      const listed = listedOf(report);
      out(
        `import: server ${server.id} lists ${listed.length} tool(s); each is a write unless you confirm it only reads (annotations are the server's claim, not checked):`,
      );
      const reads: ImportRead[] = [];
      for (const l of listed) {
        out(`  ${await signatureOf(l.id, l.tool)}`);
        out(`      ${annotationsLine(l.tool)}`);
        const read = await decideRead(l, confirm, rl);
        if (read !== undefined) reads.push(read);
        out(`      ${read === undefined ? 'write' : `read (${read.note})`}`);
      }
      let pinned = 0;
      for (const l of listed) {
        if (l.accepted) continue;
        await store.decideTool({
          server: server.id,
          tool: l.tool.name,
          hash: l.hash,
          definition: definitionJson(l.tool),
          decision: 'accepted',
          by,
          via: 'init',
        });
        pinned++;
      }
      out(
        `import: accepted ${pinned} definition(s) of ${server.id} as listed now, by ${by}${listed.length > pinned ? ` (${listed.length - pinned} accepted before)` : ''}; a definition that changes later waits for harness servers review ${server.id}`,
      );
      outcomes.push({ id: server.id, ok: true, reads, pinned });
    }
  } finally {
    rl?.close();
  }
  if (confirm === 'none' && outcomes.some((o) => o.ok))
    out(
      'import: no terminal to ask on and no --yes, so every tool stays a write (each call waits for your approval); declare the reads under tools: in .harness/workspace.yaml ({ effects: read }), or run harness init --undo and import again with --yes (confirms the tools whose readOnlyHint is true) or on a terminal',
    );
  return outcomes;
}

/** Whether a tool is declared a read, and the comment saying who confirmed it. */
async function decideRead(
  l: Listed,
  confirm: Confirm,
  rl: Interface | undefined,
): Promise<ImportRead | undefined> {
  const hint = readOnlyHint(l.tool);
  if (confirm === 'yes')
    return hint ? { name: l.tool.name, note: 'readOnlyHint from the server, confirmed by --yes' } : undefined;
  if (confirm === 'none' || rl === undefined) return undefined;
  const answer = await ask(rl, `      does ${l.id} only read? y: a read, runs unattended; n: a write [n] `);
  if (answer !== 'y' && answer !== 'yes') return undefined;
  return {
    name: l.tool.name,
    note: hint
      ? 'readOnlyHint from the server, confirmed by you at harness init'
      : 'confirmed by you at harness init; the server does not claim readOnlyHint',
  };
}

/** One answer, lowercased; the end of input answers nothing. */
async function ask(rl: Interface, question: string): Promise<string> {
  const closed = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
  try {
    const asked = rl.question(question);
    asked.catch(() => undefined);
    return (await Promise.race([asked, closed])).trim().toLowerCase();
  } catch {
    return '';
  }
}

/** A line on stderr for a step of the import that could not be done, init going on. */
export function importProblem(line: string): void {
  err(`harness: ${line}`);
}
