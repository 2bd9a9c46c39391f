// What an edit of the workspace changes in the authority it gives agents (docs/workspace-changes.md).
// A pure comparison of two loaded workspaces: the one a broker serves and an edited one. Every change
// that may let an agent do more — a grant, a command, a looser tier, a wider sandbox, a credential,
// an argv — is a widening and waits for a person; a change known to give less is a narrowing and
// applies at once. A field this comparison does not know is a widening when it changes: an unknown
// is never read as harmless.
import type { SandboxPolicy } from '@harness/exec';
import type { InputSchema, Label, Pack, PackCommand, Tier } from '@harness/packs';
import type { Agent, Workspace } from '@harness/workspace';

/** One change of authority: a sentence for a person, and where it is (`commands/sh.run/tier`). */
export interface AuthorityChange {
  readonly path: string;
  readonly text: string;
}

/** What an edit widens and what it narrows; an edit with no widening needs nobody's acceptance. */
export interface AuthorityDiff {
  readonly widenings: readonly AuthorityChange[];
  readonly narrowings: readonly AuthorityChange[];
}

/** The parts of a workspace that give authority: what {@link compareAuthority} reads. */
export type AuthorityWorkspace = Pick<Workspace, 'packs' | 'agents' | 'sandbox'> &
  Partial<Pick<Workspace, 'notify'>>;

/** A workspace that gives nothing: the base a workspace with no accepted content is compared to. */
export const NO_AUTHORITY: AuthorityWorkspace = {
  packs: [],
  agents: [],
  sandbox: { mode: 'required', mechanism: null },
};

type Collect = (widens: boolean, path: string, text: string) => void;

/**
 * Compares the workspace served (`from`) with an edited one (`to`): the widenings and narrowings, each
 * once, in a stable order. Commands no agent is granted in `to` give no authority and are not
 * compared; a grant of one later shows the command whole.
 */
export function compareAuthority(from: AuthorityWorkspace, to: AuthorityWorkspace): AuthorityDiff {
  const widenings: AuthorityChange[] = [];
  const narrowings: AuthorityChange[] = [];
  const add: Collect = (widens, path, text) => (widens ? widenings : narrowings).push({ path, text });
  const before = commandsOf(from);
  const after = commandsOf(to);
  compareMode(from, to, add);
  compareNotify(from, to, add);
  compareAgents(from.agents, to.agents, after, add);
  const grantedBefore = grantedIds(from);
  const grantedAfter = grantedIds(to);
  const packsBefore = new Map(from.packs.map((p) => [p.id, p]));
  for (const pack of to.packs) {
    const old = packsBefore.get(pack.id);
    // A pack with a command granted before and after: its shared settings are compared once.
    const shared = pack.commands.some(
      (c) => grantedAfter.has(c.manifestId) && grantedBefore.has(c.manifestId),
    );
    if (old !== undefined && shared) comparePack(old, pack, add);
  }
  for (const id of [...grantedAfter].sort()) {
    const a = before.get(id);
    const b = after.get(id);
    if (a !== undefined && b !== undefined && grantedBefore.has(id))
      compareCommand(a.command, b.command, add);
  }
  return { widenings, narrowings };
}

/** Every command of a workspace by manifest id, with the pack that holds it. */
function commandsOf(w: AuthorityWorkspace): Map<string, { command: PackCommand; pack: Pack }> {
  const out = new Map<string, { command: PackCommand; pack: Pack }>();
  for (const pack of w.packs)
    for (const command of pack.commands) out.set(command.manifestId, { command, pack });
  return out;
}

/** The manifest ids some agent of the workspace is granted. */
function grantedIds(w: AuthorityWorkspace): Set<string> {
  return new Set(w.agents.flatMap((a) => a.commands));
}

const MODE_RANK = { required: 0, preferred: 1, off: 2 } as const;

function compareMode(from: AuthorityWorkspace, to: AuthorityWorkspace, add: Collect): void {
  const a = from.sandbox.mode;
  const b = to.sandbox.mode;
  if (a !== b) add(MODE_RANK[b] > MODE_RANK[a], 'sandbox_mode', `workspace: sandbox_mode ${a} → ${b}`);
}

/** Where approvals are announced: a new or changed target or link sends a call's details elsewhere. */
function compareNotify(from: AuthorityWorkspace, to: AuthorityWorkspace, add: Collect): void {
  const a = from.notify;
  const b = to.notify;
  if (a?.link !== b?.link) {
    const widens = b?.link !== undefined;
    add(widens, 'notify/link', `notify: link ${a?.link ?? 'none'} → ${b?.link ?? 'none'}`);
  }
  const old = new Map((a?.targets ?? []).map((t) => [t.name, t]));
  const now = new Map((b?.targets ?? []).map((t) => [t.name, t]));
  for (const [name, target] of now) {
    const was = old.get(name);
    if (was === undefined)
      add(true, `notify/targets/${name}`, `notify: target ${name} (${target.kind}, new)`);
    else if (!same(was, target)) add(true, `notify/targets/${name}`, `notify: target ${name} changed`);
  }
  for (const name of old.keys()) {
    if (!now.has(name)) add(false, `notify/targets/${name}`, `notify: target ${name} removed`);
  }
}

function compareAgents(
  from: readonly Agent[],
  to: readonly Agent[],
  commands: ReadonlyMap<string, { command: PackCommand; pack: Pack }>,
  add: Collect,
): void {
  const old = new Map(from.map((a) => [a.id, a]));
  const shown = (id: string): string => {
    const found = commands.get(id);
    return found === undefined ? id : `${id}: ${describeCommand(found.command, found.pack)}`;
  };
  for (const agent of to) {
    const path = `agents/${agent.id}`;
    const was = old.get(agent.id);
    if (was === undefined) {
      add(
        true,
        path,
        `agent ${agent.id}: new agent${agent.scopes.length > 0 ? `, scopes ${agent.scopes.join(', ')}` : ''}`,
      );
      for (const g of agent.grants) add(true, `${path}/grants`, `agent ${agent.id}: grants ${g} (new)`);
      for (const c of agent.commands)
        add(true, `${path}/commands/${c}`, `agent ${agent.id}: runs ${shown(c)} (new)`);
      continue;
    }
    for (const [g, gone] of setChanges(was.grants, agent.grants)) {
      add(!gone, `${path}/grants`, `agent ${agent.id}: grants ${g}${gone ? ' (removed)' : ' (new)'}`);
    }
    if (was.builtins !== agent.builtins) {
      add(
        agent.builtins,
        `${path}/builtins`,
        `agent ${agent.id}: the loom.* built-ins ${agent.builtins ? 'offered' : 'no longer offered'}`,
      );
    }
    for (const [s, gone] of setChanges(was.scopes, agent.scopes)) {
      add(!gone, `${path}/scopes`, `agent ${agent.id}: scope ${s}${gone ? ' (removed)' : ' (new)'}`);
    }
    for (const [c, gone] of setChanges(was.commands, agent.commands)) {
      add(
        !gone,
        `${path}/commands/${c}`,
        gone ? `agent ${agent.id}: no longer runs ${c}` : `agent ${agent.id}: runs ${shown(c)} (new)`,
      );
    }
  }
  for (const agent of from) {
    if (!to.some((a) => a.id === agent.id)) add(false, `agents/${agent.id}`, `agent ${agent.id}: removed`);
  }
}

/** Pack fields that give no authority of their own (their effect shows in each command). */
const PACK_NEUTRAL = new Set([
  'id',
  'standard',
  'description',
  'permission',
  'requires',
  'optional',
  'commands',
  'label',
]);

function comparePack(a: Pack, b: Pack, add: Collect): void {
  const path = `packs/${a.id}`;
  const who = `pack ${a.id}`;
  if (a.cwd !== b.cwd) add(true, `${path}/cwd`, `${who}: cwd ${a.cwd} → ${b.cwd}`);
  for (const [name, gone] of setChanges(a.credentials, b.credentials)) {
    add(!gone, `${path}/credentials`, `${who}: credential ${name}${gone ? ' (removed)' : ' (new)'}`);
  }
  // Names only: an env value may be a secret written in the file. Any change is a widening: a
  // removed variable may have been the one that hardened a program (GIT_CONFIG_NOSYSTEM, …).
  for (const name of unionKeys(a.env, b.env)) {
    const was = a.env[name];
    const now = b.env[name];
    if (was === now) continue;
    const how = was === undefined ? 'new' : now === undefined ? 'removed' : 'changed';
    add(true, `${path}/env/${name}`, `${who}: env ${name} (${how})`);
  }
  compareUnknown(a, b, PACK_NEUTRAL, new Set(['cwd', 'credentials', 'env']), path, who, add);
}

/** Command fields that give no authority (what the model reads, how output is shown, waits for people). */
const COMMAND_NEUTRAL = new Set([
  'id',
  'manifestId',
  'pack',
  'title',
  'description',
  'examples',
  'output',
  'sortLines',
  'okExitCodes',
  'unchangedExitCodes',
  'failureExitCodes',
  'required',
  'effectsDeclared',
  'approvalWaitMs',
  'approvalTimeoutMs',
]);
const COMMAND_COMPARED = new Set([
  'argv',
  'inputs',
  'leadingDash',
  'withinCwd',
  'values',
  'effects',
  'tier',
  'timeoutMs',
  'maxOutputBytes',
  'telemetryArgs',
  'scopes',
  'label',
  'sandbox',
  'unattended',
]);

function compareCommand(a: PackCommand, b: PackCommand, add: Collect): void {
  const id = b.manifestId;
  const path = `commands/${id}`;
  if (!same(a.argv, b.argv))
    add(true, `${path}/argv`, `${id}: argv ${argvText(a.argv)} → ${argvText(b.argv)}`);
  compareTier(a, b, add);
  if ((a.unattended ?? false) !== (b.unattended ?? false)) {
    const now = b.unattended === true;
    add(
      now,
      `${path}/unattended`,
      `${id}: ${now ? 'runs confined without approval' : 'asks a person again'}`,
    );
  }
  if (a.effects !== b.effects) {
    add(b.effects === 'read', `${path}/effects`, `${id}: effects ${a.effects} → ${b.effects}`);
  }
  compareSandbox(id, a.sandbox, b.sandbox, add);
  for (const [name, gone] of setChanges(a.leadingDash, b.leadingDash)) {
    add(
      !gone,
      `${path}/inputs/${name}`,
      `${id}: input ${name} may ${gone ? 'no longer ' : ''}begin with "-"`,
    );
  }
  for (const [name, gone] of setChanges(a.withinCwd, b.withinCwd)) {
    add(gone, `${path}/inputs/${name}`, `${id}: input ${name} ${gone ? 'no longer' : 'now'} kept within cwd`);
  }
  if (!same(a.values, b.values)) add(true, `${path}/values`, `${id}: the argv text of input values changed`);
  compareInputs(id, a.inputs, b.inputs, add);
  compareNumber(a.timeoutMs, b.timeoutMs, `${path}/timeout`, `${id}: timeout`, ms, add);
  compareNumber(a.maxOutputBytes, b.maxOutputBytes, `${path}/max_output`, `${id}: max output`, bytes, add);
  if ((a.telemetryArgs ?? false) !== (b.telemetryArgs ?? false)) {
    const on = b.telemetryArgs === true;
    add(on, `${path}/telemetry`, `${id}: argument values on spans ${on ? 'off → on' : 'on → off'}`);
  }
  for (const [scope, gone] of setChanges(a.scopes, b.scopes)) {
    add(gone, `${path}/scopes`, `${id}: requires scope ${scope}${gone ? ' no longer' : ' (new)'}`);
  }
  compareLabel(id, a.label, b.label, add);
  compareUnknown(a, b, COMMAND_NEUTRAL, COMMAND_COMPARED, path, id, add);
}

/**
 * A label bounds where a command's output may flow: more confidentiality atoms and fewer integrity
 * atoms keep it narrower; any other change (a label dropped, an atom removed) may let it flow further.
 */
function compareLabel(id: string, a: Label | undefined, b: Label | undefined, add: Collect): void {
  if (same(a, b)) return;
  const atoms = (list: readonly unknown[] | undefined) => new Set((list ?? []).map(canonical));
  const confA = atoms(a?.confidentiality);
  const confB = atoms(b?.confidentiality);
  const intA = atoms(a?.integrity);
  const intB = atoms(b?.integrity);
  const narrower =
    b !== undefined && [...confA].every((x) => confB.has(x)) && [...intB].every((x) => intA.has(x));
  add(!narrower, `commands/${id}/label`, `${id}: label ${narrower ? 'raised' : 'changed'}`);
}

/** What a call of a tier needs, for reads and for writes: 0 refused, 1 a person's approval, 2 nothing. */
const GATE: Readonly<Record<Tier, { read: number; write: number }>> = {
  open: { read: 2, write: 2 },
  cautious: { read: 2, write: 1 },
  strict: { read: 1, write: 1 },
  readonly: { read: 2, write: 0 },
};

/** A tier change widens unless the new tier asks at least as much of reads and of writes. */
function compareTier(a: PackCommand, b: PackCommand, add: Collect): void {
  if (a.tier === b.tier) return;
  const widens = GATE[b.tier].read > GATE[a.tier].read || GATE[b.tier].write > GATE[a.tier].write;
  add(widens, `commands/${b.manifestId}/tier`, `${b.manifestId}: tier ${a.tier} → ${b.tier}`);
}

const NETWORK_RANK = { none: 0, loopback: 1, host: 2 } as const;

function compareSandbox(id: string, a: SandboxPolicy | null, b: SandboxPolicy | null, add: Collect): void {
  const path = `commands/${id}/sandbox`;
  if (a === null && b === null) return;
  if (a === null || b === null) {
    add(
      b === null,
      path,
      `${id}: sandbox ${a === null ? 'off' : 'confined'} → ${b === null ? 'off' : 'confined'}`,
    );
    return;
  }
  const readA = a.read ?? 'all';
  const readB = b.read ?? 'all';
  if (readA === 'all' || readB === 'all') {
    if (readA !== readB) {
      add(
        readB === 'all',
        `${path}/read`,
        `${id}: read paths ${readA === 'all' ? 'all' : 'a list'} → ${readB === 'all' ? 'the whole filesystem' : 'a list'}`,
      );
    }
  } else {
    pathChanges(id, 'read paths', readA, readB, `${path}/read`, true, add);
  }
  pathChanges(id, 'write paths', a.write ?? [], b.write ?? [], `${path}/write`, true, add);
  pathChanges(id, 'deny paths', a.deny ?? [], b.deny ?? [], `${path}/deny`, false, add);
  pathChanges(
    id,
    'unix sockets',
    a.unixSockets ?? [],
    b.unixSockets ?? [],
    `${path}/unix_sockets`,
    true,
    add,
  );
  const netA = a.network ?? 'none';
  const netB = b.network ?? 'none';
  if (netA !== netB)
    add(NETWORK_RANK[netB] > NETWORK_RANK[netA], `${path}/network`, `${id}: network ${netA} → ${netB}`);
  const procA = a.processes ?? Number.POSITIVE_INFINITY;
  const procB = b.processes ?? Number.POSITIVE_INFINITY;
  if (procA !== procB) {
    const shown = (n: number) => (Number.isFinite(n) ? String(n) : 'no limit');
    add(procB > procA, `${path}/processes`, `${id}: processes ${shown(procA)} → ${shown(procB)}`);
  }
  compareHome(id, a, b, add);
  const known = new Set(['read', 'write', 'deny', 'unixSockets', 'network', 'processes', 'home']);
  compareUnknown(a, b, new Set(), known, path, `${id}: sandbox`, add);
}

/** The home directory a confined run sees: its directory, and the paths of it left visible. */
function compareHome(id: string, a: SandboxPolicy, b: SandboxPolicy, add: Collect): void {
  const path = `commands/${id}/sandbox/home`;
  const homeA = (a as { home?: { dir?: unknown; visible?: unknown } }).home;
  const homeB = (b as { home?: { dir?: unknown; visible?: unknown } }).home;
  if (same(homeA, homeB)) return;
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
  if (homeA === undefined || homeB === undefined || homeA.dir !== homeB.dir) {
    // Without an allow-list the whole home is readable (less its deny list): dropping it widens.
    add(
      homeB === undefined || homeA !== undefined,
      path,
      `${id}: home ${homeB === undefined ? 'allow-list removed' : 'changed'}`,
    );
    return;
  }
  pathChanges(
    id,
    'home paths visible',
    list(homeA.visible),
    list(homeB.visible),
    `${path}/visible`,
    true,
    add,
  );
  compareUnknown(homeA, homeB, new Set(), new Set(['dir', 'visible']), path, `${id}: sandbox home`, add);
}

/** Paths added and removed; `more` says whether an added path widens (true for read and write). */
function pathChanges(
  id: string,
  what: string,
  a: readonly string[],
  b: readonly string[],
  path: string,
  more: boolean,
  add: Collect,
): void {
  for (const [p, gone] of setChanges(a, b))
    add(gone !== more, path, `${id}: ${what} ${gone ? '−' : '+'} ${p}`);
}

/** Input keywords that give nothing (text for the model; `code` only warns; the rest compared apart). */
const INPUT_NEUTRAL = new Set([
  'description',
  'title',
  'default',
  'code',
  'enum_from_workspace',
  'allow_leading_dash',
  'within_cwd',
]);

function compareInputs(
  id: string,
  a: Readonly<Record<string, InputSchema>>,
  b: Readonly<Record<string, InputSchema>>,
  add: Collect,
): void {
  for (const name of unionKeys(a, b)) {
    const path = `commands/${id}/inputs/${name}`;
    const was = a[name];
    const now = b[name];
    if (was === undefined || now === undefined) {
      add(was === undefined, path, `${id}: input ${name} ${was === undefined ? '(new)' : '(removed)'}`);
      continue;
    }
    const who = `${id}: input ${name}`;
    if ((was.type ?? 'string') !== (now.type ?? 'string'))
      add(true, `${path}/type`, `${who}: type ${was.type} → ${now.type}`);
    compareEnum(was.enum, now.enum, `${path}/enum`, who, add);
    if (was.pattern !== now.pattern) {
      const widens = now.pattern === undefined || was.pattern !== undefined;
      add(widens, `${path}/pattern`, `${who}: pattern ${was.pattern ?? 'none'} → ${now.pattern ?? 'none'}`);
    }
    compareBound(was.minLength, now.minLength, 'lower', `${path}/minLength`, `${who}: minLength`, add);
    compareBound(was.maxLength, now.maxLength, 'upper', `${path}/maxLength`, `${who}: maxLength`, add);
    compareBound(was.minimum, now.minimum, 'lower', `${path}/minimum`, `${who}: minimum`, add);
    compareBound(was.maximum, now.maximum, 'upper', `${path}/maximum`, `${who}: maximum`, add);
    const known = new Set(['type', 'enum', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum']);
    compareUnknown(was, now, INPUT_NEUTRAL, known, path, who, add);
  }
}

function compareEnum(
  a: readonly (string | number | boolean)[] | undefined,
  b: readonly (string | number | boolean)[] | undefined,
  path: string,
  who: string,
  add: Collect,
): void {
  if (same(a, b)) return;
  if (b === undefined) {
    add(true, path, `${who}: enum removed (any value)`);
    return;
  }
  if (a === undefined) {
    add(false, path, `${who}: enum ${b.map(String).join(', ')} (new)`);
    return;
  }
  for (const [v, gone] of setChanges(a.map(String), b.map(String)))
    add(!gone, path, `${who}: enum ${gone ? '−' : '+'} ${v}`);
}

/** A bound that moves so that more values pass (or is removed) widens. */
function compareBound(
  a: number | undefined,
  b: number | undefined,
  side: 'lower' | 'upper',
  path: string,
  what: string,
  add: Collect,
): void {
  if (a === b) return;
  const none = side === 'lower' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  const x = a ?? none;
  const y = b ?? none;
  const widens = side === 'lower' ? y < x : y > x;
  add(widens, path, `${what} ${a ?? 'none'} → ${b ?? 'none'}`);
}

function compareNumber(
  a: number,
  b: number,
  path: string,
  what: string,
  shown: (n: number) => string,
  add: Collect,
): void {
  if (a !== b) add(b > a, path, `${what} ${shown(a)} → ${shown(b)}`);
}

/**
 * Any field neither neutral nor compared above: a change is a widening. A field added to the loaded
 * workspace later is then held until this comparison learns what it means.
 */
function compareUnknown(
  a: object,
  b: object,
  neutral: ReadonlySet<string>,
  compared: ReadonlySet<string>,
  path: string,
  who: string,
  add: Collect,
): void {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const key of unionKeys(x, y)) {
    if (neutral.has(key) || compared.has(key)) continue;
    if (!same(x[key], y[key])) add(true, `${path}/${key}`, `${who}: ${key} changed`);
  }
}

/** One line of what a command is: enough for a person to judge a grant of it. */
export function describeCommand(command: PackCommand, pack: Pack): string {
  const parts = [`argv ${argvText(command.argv)}`, `tier ${command.tier}`, `effects ${command.effects}`];
  const s = command.sandbox;
  if (s === null) parts.push('unconfined');
  else {
    const write = s.write ?? [];
    parts.push(
      `confined (network ${s.network ?? 'none'}, ${write.length === 0 ? 'writes nothing' : `writes ${write.join(', ')}`})`,
    );
  }
  if (pack.credentials.length > 0) parts.push(`credentials ${pack.credentials.join(', ')}`);
  return parts.join(', ');
}

const argvText = (argv: readonly string[]): string => `[${argv.join(', ')}]`;
const ms = (n: number): string => (n % 1000 === 0 ? `${n / 1000}s` : `${n}ms`);
const bytes = (n: number): string => (n % 1024 === 0 ? `${n / 1024} KiB` : `${n} B`);

/** Each element added (`false`) or removed (`true`) between two lists, in order of appearance. */
function setChanges(a: readonly string[], b: readonly string[]): [string, boolean][] {
  const had = new Set(a);
  const has = new Set(b);
  return [
    ...[...has].filter((x) => !had.has(x)).map((x): [string, boolean] => [x, false]),
    ...[...had].filter((x) => !has.has(x)).map((x): [string, boolean] => [x, true]),
  ];
}

function unionKeys(a: object, b: object): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
}

/** Deep equality of plain data (key order ignored, `undefined` members ignored). */
function same(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
