// `harness servers review|accept|reject`: a person's side of pinned definitions (docs/servers.md,
// "Review"). Each reads the listings by starting the servers as `servers list` does, with the
// instance's accepted definitions, and writes decisions into the instance's store, where a running
// broker reads them at its next listing or call.
import type { DiffLine, QuarantinedTool, ServerReport } from '@harness/host/internal';
import type { UpstreamTool } from '@harness/servers';
import type { Store, ToolPin, ToolSighting } from '@harness/store';
import { parse } from '../args';
import { CliError } from '../errors';
import { out, printJson } from '../output';
import { instanceExists, type Located, openInstanceStore, readReports, serversLine } from '../servers-report';

/** Where a servers command reads: the workspace file and the instance directory. */
export type Locate = (flags: {
  workspace?: string | undefined;
  instance?: string | undefined;
  agent?: string | undefined;
}) => Promise<{ workspaceFile: string; instanceDir: string }>;

/** One tool held for review, as `review` prints it. */
interface Held {
  readonly server: string;
  readonly id: string;
  readonly upstream: string;
  readonly hash: string;
  readonly change: 'new' | 'changed';
  readonly firstSeen: string | null;
  readonly rejected: { readonly at: string; readonly by: string } | null;
  readonly accepted: { readonly hash: string; readonly at: string; readonly by: string } | null;
  readonly diff: readonly DiffLine[];
}

/** What every decision command reads: the listings under the instance's pins, and the store. */
interface Read {
  readonly store: Store;
  readonly workspaceFile: string;
  readonly instanceDir: string;
  readonly reports: readonly ServerReport[];
  /** The flags the command was given, for the command lines it prints. */
  readonly given: Located;
}

/** Opens the instance's store and reads every server's listing under its pins; the caller closes the store. */
async function readWithPins(
  locate: Locate,
  flags: { workspace?: string; instance?: string; agent?: string },
): Promise<Read> {
  const { workspaceFile, instanceDir } = await locate(flags);
  if (!instanceExists(instanceDir)) {
    throw new CliError(
      'config',
      `no instance at ${instanceDir}, so no definition can be accepted there; harness serve creates it on first use, or pass --instance <dir> (or set HARNESS_HOME) to the instance serve uses`,
    );
  }
  const { openStore } = await import('@harness/host');
  const store = await openInstanceStore(openStore, instanceDir);
  try {
    const { reports } = await readReports(workspaceFile, instanceDir, store);
    return { store, workspaceFile, instanceDir, reports, given: flags };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The report of server `id`, or a usage error naming the servers there are. */
function serverOf(read: Read, id: string): ServerReport {
  const report = read.reports.find((r) => r.id === id);
  if (report === undefined) {
    const ids = read.reports.map((r) => r.id);
    throw new CliError(
      'usage',
      `no MCP server "${id}" in ${read.workspaceFile}; its servers: ${ids.join(', ') || '(none: it declares no mcp_servers)'}`,
    );
  }
  if (report.listing === undefined) {
    throw new CliError(
      'check_failed',
      `MCP server "${id}" gave no listing, so nothing of it can be reviewed: ${report.error ?? report.state.error ?? 'it did not start'} (${serversLine(['logs', id], read.given)})`,
    );
  }
  return report;
}

const listedOf = (report: ServerReport, upstream: string): UpstreamTool | undefined =>
  report.listing?.find((t) => t.name === upstream);

function held(
  definitionDiff: typeof import('@harness/host/internal').definitionDiff,
  report: ServerReport,
  q: QuarantinedTool,
  pins: ToolPin[],
  seen: ToolSighting[],
): Held {
  const pin = pins.find((p) => p.tool === q.upstream);
  const sighting = seen.find((s) => s.tool === q.upstream && s.hash === q.hash);
  const listed = listedOf(report, q.upstream) as unknown as Record<string, unknown>;
  const accepted = pin === undefined ? undefined : (JSON.parse(pin.definition) as Record<string, unknown>);
  return {
    server: report.id,
    id: q.id,
    upstream: q.upstream,
    hash: q.hash,
    change: q.accepted === undefined ? 'new' : 'changed',
    firstSeen: sighting?.first_seen ?? null,
    rejected:
      sighting?.rejected_at && sighting.rejected_by
        ? { at: sighting.rejected_at, by: sighting.rejected_by }
        : null,
    accepted: pin === undefined ? null : { hash: pin.hash, at: pin.accepted_at, by: pin.accepted_by },
    diff: definitionDiff(accepted, listed),
  };
}

function printHeld(h: Held, given: Located): void {
  out(
    `${h.id}  (${h.change}${h.upstream === h.id.slice(h.server.length + 1) ? '' : `, listed as ${JSON.stringify(h.upstream)}`})`,
  );
  out(`  sha256 ${h.hash}`);
  out(`  first seen ${h.firstSeen ?? '(now)'}`);
  if (h.accepted !== null)
    out(`  accepted before: sha256 ${h.accepted.hash} by ${h.accepted.by} at ${h.accepted.at}`);
  if (h.rejected !== null) out(`  rejected by ${h.rejected.by} at ${h.rejected.at}`);
  for (const l of h.diff) {
    out(`  ${l.member}:`);
    if (l.before !== undefined) out(`    - ${l.before}`);
    if (l.after !== undefined) out(`    + ${l.after}`);
    for (const f of l.flags) out(`    ! ${f}`);
  }
  out(`  accept: ${serversLine(['accept', h.id, '--hash', h.hash], given)}`);
}

/** `harness servers review [<id>]`: every quarantined tool with what changed; exit 0. */
export async function review(argv: string[], locate: Locate): Promise<number> {
  const { values, positionals } = parse(argv, {
    workspace: { type: 'string' },
    instance: { type: 'string' },
    agent: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length > 1) throw new CliError('usage', 'servers review takes at most one server id');
  const read = await readWithPins(locate, values);
  try {
    const [only] = positionals;
    const reports =
      only === undefined ? read.reports.filter((r) => r.listing !== undefined) : [serverOf(read, only)];
    const { definitionDiff } = await import('@harness/host/internal');
    const all: Held[] = [];
    for (const report of reports) {
      const pins = await read.store.listToolPins(report.id);
      const seen = await read.store.listToolSightings(report.id);
      all.push(...report.quarantined.map((q) => held(definitionDiff, report, q, pins, seen)));
    }
    if (values.json) {
      printJson({ ok: true, workspace: read.workspaceFile, instance: read.instanceDir, quarantined: all });
      return 0;
    }
    if (all.length === 0) {
      out(
        `nothing to review: every tool ${only === undefined ? 'the servers list' : `"${only}" lists`} is accepted`,
      );
      return 0;
    }
    for (const h of all) printHeld(h, values);
    out(`(${all.length} tool(s) quarantined: not listed to any agent, not callable, until accepted)`);
    return 0;
  } finally {
    await read.store.close();
  }
}

/** `<server>.<tool>` as the person typed it: the tool by its id's member or its upstream name. */
function toolOf(read: Read, arg: string): { report: ServerReport; tool: UpstreamTool; id: string } {
  const dot = arg.indexOf('.');
  if (dot <= 0) {
    throw new CliError('usage', `expected <server>.<tool> (e.g. github.create_issue), found "${arg}"`);
  }
  const report = serverOf(read, arg.slice(0, dot));
  const name = arg.slice(dot + 1);
  const byId = [...report.tools, ...report.quarantined].find((t) => t.id === arg);
  const upstream = byId?.upstream ?? name;
  const tool = listedOf(report, upstream);
  if (tool === undefined) {
    const names = [...report.tools, ...report.quarantined].map((t) => t.id);
    throw new CliError(
      'usage',
      `MCP server "${report.id}" lists no tool "${name}" now; it lists: ${names.join(', ') || '(no tool)'}`,
    );
  }
  return { report, tool, id: byId?.id ?? arg };
}

/**
 * `harness servers accept <id>.<tool> --hash <hex>` / `reject`: the decision on the definition
 * listed now, refused when `--hash` is not its hash (SV-19). `accept <id> --all`: every tool listed now.
 */
export async function decide(
  argv: string[],
  locate: Locate,
  decision: 'accepted' | 'rejected',
): Promise<number> {
  const verb = decision === 'accepted' ? 'accept' : 'reject';
  const { values, positionals } = parse(argv, {
    workspace: { type: 'string' },
    instance: { type: 'string' },
    agent: { type: 'string' },
    hash: { type: 'string' },
    all: { type: 'boolean' },
    by: { type: 'string' },
    json: { type: 'boolean' },
  });
  const [target, ...more] = positionals;
  if (target === undefined || more.length > 0)
    throw new CliError(
      'usage',
      `servers ${verb} takes one <server>.<tool> with --hash <hex>${decision === 'accepted' ? ', or one <server> with --all' : ''}`,
    );
  if (values.all && decision === 'rejected')
    throw new CliError('usage', 'servers reject takes no --all: reject one definition by its hash');
  if (values.all && values.hash !== undefined)
    throw new CliError('usage', '--all accepts what is listed now; it takes no --hash');
  if (!values.all && values.hash === undefined)
    throw new CliError(
      'usage',
      `servers ${verb} ${target} needs --hash <hex>: the hash ${serversLine(['review', target.split('.')[0] ?? target], values)} printed`,
    );
  const { personName } = await import('@harness/host/operator');
  const { definitionHash, definitionJson } = await import('@harness/host/internal');
  const by = values.by ?? personName();
  const read = await readWithPins(locate, values);
  try {
    const chosen = values.all ? allHeld(serverOf(read, target)) : [toolOf(read, target)];
    const done: { id: string; upstream: string; hash: string }[] = [];
    for (const { report, tool, id } of chosen) {
      const hash = definitionHash(tool);
      if (values.hash !== undefined && values.hash.toLowerCase() !== hash) {
        throw new CliError(
          'check_failed',
          `${id}: the definition listed now has sha256 ${hash}, not ${values.hash}; it changed since it was reviewed (or the hash is mistyped), so nothing was ${decision}; review it again: ${serversLine(['review', report.id], values)}`,
        );
      }
      await read.store.decideTool({
        server: report.id,
        tool: tool.name,
        hash,
        definition: definitionJson(tool),
        decision,
        by,
        via: 'cli',
      });
      done.push({ id, upstream: tool.name, hash });
    }
    if (values.json) {
      printJson({ ok: true, decision, by, tools: done });
      return 0;
    }
    if (done.length === 0) {
      out(`nothing to accept: every tool "${target}" lists is accepted already`);
      return 0;
    }
    for (const d of done) out(`${decision} ${d.id}  sha256 ${d.hash}`);
    out(
      decision === 'accepted'
        ? `(${done.length} definition(s) accepted by ${by}; a running broker serves them at its next listing or call)`
        : `(rejected by ${by}; the tool stays quarantined until a definition of it is accepted)`,
    );
    return 0;
  } finally {
    await read.store.close();
  }
}

/** Every tool of a server held for review now, with the definition listed (what `--all` accepts). */
function allHeld(report: ServerReport): { report: ServerReport; tool: UpstreamTool; id: string }[] {
  return report.quarantined.flatMap((q) => {
    const tool = listedOf(report, q.upstream);
    return tool === undefined ? [] : [{ report, tool, id: q.id }];
  });
}
