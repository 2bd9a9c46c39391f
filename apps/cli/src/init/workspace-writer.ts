// The text of `.harness/workspace.yaml`: the chosen standard packs with their fixed sets, and one
// agent holding their reads and their safe writes, every line with a comment saying why it is there.
import type { OverrideChoice, PackChoice, WorkspaceChoice } from './choose';
import type { ImportedServer } from './import';
import { type CatalogCommand, grantKind, type StandardCatalog } from './standard';

/** The agent `harness init` writes, and every client entry serves. */
export const AGENT = 'coder';

/** The column trailing comments start at. */
const COMMENT_COLUMN = 40;

/** What a strict command can do that makes it worth a person's decision each time. */
const STRICT_WHY: Readonly<Record<string, string>> = {
  'git.push': 'it sends commits to a remote over the network',
  'git.reset_hard': 'it discards uncommitted work',
  'git.clean': 'it deletes untracked files',
  'node.install': 'it downloads from the registry with the network on',
  'gh.pr_comment': 'it posts to GitHub',
  'gh.pr_create': 'it opens a pull request on GitHub',
};

/** The whole file for `choice`, for the project at `projectDir`. */
export function renderWorkspace(
  choice: WorkspaceChoice,
  catalog: StandardCatalog,
  projectDir: string,
  servers: readonly ImportedServer[] = [],
): string {
  const lines = [
    ...comment(
      '',
      `Written by \`harness init\` for ${projectDir}: the commands an agent may run in this repository, and what it may run unattended. Check it with \`harness packs check .harness/workspace.yaml\`; docs/standard-packs.md says what each command can touch and what it refuses. It is yours to edit: \`harness init\` keeps it, and shows you an edit once before it keeps that (--force writes it again).`,
    ),
    '',
    line('command_packs:', 'the packs this workspace offers, each a standard pack of this release'),
  ];
  for (const pack of choice.packs) lines.push(...packEntry(pack, catalog.get(pack.id) ?? []));
  for (const gone of choice.leftOut) lines.push(...comment('  ', `${gone.id} is left out: ${gone.why}.`));
  if (servers.length > 0) lines.push('', ...serversBlock(servers));
  lines.push(
    '',
    line('agents:', 'who may run which of those commands'),
    line(`  - id: ${AGENT}`, `the agent \`harness serve --agent ${AGENT}\` serves`),
    line('    builtins: false', 'no loom.* tools: they compose shared Loom documents, not this repository'),
    ...comment(
      '    ',
      'Reads run unattended, and so do the writes each pack lists in unattended_when_confined while this machine confines them; every other write waits for your approval (harness console). A strict command needs approval for every call, and what it does is hard to undo, so each is listed commented out: uncomment one to grant it.',
    ),
    line('    grants:', `what ${AGENT} may run`),
  );
  for (const pack of choice.packs) lines.push(...grantLines(pack, catalog.get(pack.id) ?? []));
  for (const server of servers)
    lines.push(
      line(
        `      - server:${server.id}`,
        server.pinned === true
          ? `its tools as harness init accepted them; a changed or new one waits for harness servers review ${server.id}`
          : `its tools, each once you accept its definition (harness servers accept ${server.id} --all)`,
      ),
    );
  return `${lines.join('\n')}\n`;
}

/** The `mcp_servers` block of the servers `harness init --import` took from the clients' configs. */
function serversBlock(servers: readonly ImportedServer[]): string[] {
  const out = [line('mcp_servers:', "the MCP servers imported from your clients' configs (docs/servers.md)")];
  for (const server of servers) {
    const from = server.from.map((f) => `${f.name} of ${f.source.file} (${f.source.name})`).join(', ');
    out.push(...comment('  ', `${server.id}: imported from ${from}.`));
    out.push(
      line(
        `  - id: ${server.id}`,
        'served to the agent as <id>.<tool>, each tool a write until declared a read',
      ),
    );
    const t = server.transport;
    if (t.kind === 'stdio') {
      out.push(
        ...comment(
          '    ',
          'It runs confined: the filesystem read-only, no network. Widen what it needs with a sandbox block (docs/servers.md, "Confinement and lifecycle").',
        ),
      );
      out.push(line('    transport:', 'the program its client started, as an argv'));
      out.push(line(`      command: [${t.command.map(yamlScalar).join(', ')}]`, 'never a shell line'));
      if (Object.keys(t.env).length > 0) out.push(...valueLines('env', t.env));
    } else {
      out.push(line('    transport:', 'the streamable HTTP endpoint its client reached'));
      out.push(line(`      url: ${yamlScalar(t.url)}`, 'the endpoint'));
      if (Object.keys(t.headers).length > 0) out.push(...valueLines('headers', t.headers));
    }
    if (server.credentials.length > 0)
      out.push(
        line(
          `    credentials_ref: [${server.credentials.join(', ')}]`,
          "held in the instance's credentials.json, never in this file",
        ),
      );
    if (server.timeout !== undefined)
      out.push(line(`    timeout: ${server.timeout}`, 'its client’s tool timeout'));
    if (server.startTimeout !== undefined)
      out.push(line(`    start_timeout: ${server.startTimeout}`, 'its client’s startup timeout'));
    if (server.reads !== undefined && server.reads.length > 0) {
      out.push(line('    tools:', 'the tools confirmed to only read; every other tool is a write'));
      for (const read of server.reads)
        out.push(line(`      ${yamlScalar(read.name)}: { effects: read }`, read.note));
    }
  }
  return out;
}

function valueLines(key: string, values: Readonly<Record<string, string>>): string[] {
  const out = [line(`      ${key}:`, "each value moved into the instance's credentials.json")];
  for (const [name, value] of Object.entries(values))
    out.push(`        ${yamlScalar(name)}: ${yamlScalar(value)}`);
  return out;
}

function packEntry(pack: PackChoice, commands: readonly CatalogCommand[]): string[] {
  const out = [
    ...comment('  ', pack.why),
    line(`  - standard: ${pack.id}`, `the bundled pack (docs/standard-packs.md#${pack.id})`),
    line('    cwd: ..', 'runs in the project directory (this file sits in .harness/)'),
    ...unattendedLines(pack, commands),
  ];
  if (pack.env.length > 0) {
    out.push(line('    env:', "added to the pack's own environment"));
    for (const e of pack.env) out.push(line(`      ${e.name}: ${yamlScalar(e.value)}`, e.comment));
  }
  const set = pack.overrides.filter((o) => o.set !== undefined);
  // With nothing found to list, no key is written (a placeholder would read as the project's own
  // value): a comment says what to add.
  if (set.length === 0) {
    for (const o of pack.overrides) out.push(...comment('    ', `input_overrides: ${unset(o)}`));
    return out;
  }
  out.push(line('    input_overrides:', "what this file sets of its commands' inputs"));
  for (const o of pack.overrides) out.push(...overrideLines(pack.id, o));
  return out;
}

/**
 * `unattended_when_confined` for the granted writes that run confined: the edit-and-test loop runs
 * with no click, because what such a run can reach is the project alone.
 */
function unattendedLines(pack: PackChoice, commands: readonly CatalogCommand[]): string[] {
  const ids = commands
    .filter((c) => grantKind(c) === 'write' && c.confinedWrite && !pack.heldBack.has(c.id))
    .map((c) => c.id.slice(pack.id.length + 1));
  if (ids.length === 0) return [];
  return [
    ...comment(
      '    ',
      'No click for these while this machine confines them: they write only this project (.git, .harness and client configs read-only), with no network and no secret. Unconfined (no bubblewrap) they ask, and `harness doctor` says why.',
    ),
    line(`    unattended_when_confined: [${ids.join(', ')}]`, 'confined writes, no approval asked'),
  ];
}

function overrideLines(packId: string, o: OverrideChoice): string[] {
  if (o.set === undefined) return comment('      ', unset(o));
  const value =
    'enum' in o.set
      ? `{ enum: [${o.set.enum.map(yamlScalar).join(', ')}] }`
      : `{ default: ${yamlScalar(o.set.default)} }`;
  const what = 'enum' in o.set ? 'may take only these' : 'defaults to this';
  return [
    line(`      ${o.command}:`, `${packId}.${o.command} ${what}`),
    ...(o.leftOut === undefined ? [] : comment('        ', o.leftOut)),
    line(`        ${o.input}: ${value}`, o.comment),
  ];
}

/** The comment standing for an override with nothing to set: what was left out, and what to add. */
function unset(o: OverrideChoice): string {
  return `${o.leftOut === undefined ? '' : `${o.leftOut} `}${o.comment}.`;
}

function grantLines(pack: PackChoice, commands: readonly CatalogCommand[]): string[] {
  const out: string[] = [];
  const reads = commands.filter((c) => grantKind(c) === 'read');
  if (reads.length > 0)
    out.push(
      line(
        `      - pack:${pack.id}`,
        `its reads, run unattended: ${reads.map((c) => c.id.slice(pack.id.length + 1)).join(', ')}`,
      ),
    );
  for (const c of commands.filter((x) => grantKind(x) === 'write')) {
    const held = pack.heldBack.get(c.id);
    const waits = c.confinedWrite ? 'write, runs confined without approval' : 'write, waits for approval';
    if (held === undefined) out.push(line(`      - ${c.id}`, `${waits}: ${c.title}`));
    else out.push(line(`      # - ${c.id}`, `not granted: ${held}`));
  }
  for (const c of commands.filter((x) => grantKind(x) === 'strict')) {
    const why = STRICT_WHY[c.id] ?? c.title.toLowerCase();
    out.push(line(`      # - ${c.id}`, `strict, not granted: ${why}`));
  }
  return out;
}

/** `code` with `# note` from the comment column (or one space past a longer code). */
function line(code: string, note: string): string {
  return `${code.padEnd(COMMENT_COLUMN - 1)} # ${note}`;
}

/** `text` as comment lines indented by `indent`, wrapped at 100 columns. */
function comment(indent: string, text: string): string[] {
  const out: string[] = [];
  let current = `${indent}#`;
  for (const word of text.split(/\s+/)) {
    if (current.length + 1 + word.length > 100 && current !== `${indent}#`) {
      out.push(current);
      current = `${indent}#`;
    }
    current += ` ${word}`;
  }
  out.push(current);
  return out;
}

/** A YAML flow scalar that reads back as this string: plain where that is safe, else double-quoted. */
export function yamlScalar(value: string): string {
  const plain =
    /^[A-Za-z_][A-Za-z0-9_.\-/]*$/.test(value) && !/^(true|false|null|yes|no|on|off|y|n)$/i.test(value);
  return plain ? value : JSON.stringify(value);
}
