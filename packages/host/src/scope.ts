import { readFileSync } from 'node:fs';
import { parseYamlConfig } from '@harness/config/yaml';
import { BUILTIN_IDS, type BuiltinId } from './builtins';
import { HostError, HostErrorCode } from './errors';

/** A scope file as written (docs/host.md, "The scope file"). */
export interface ScopeFile {
  /** The run this broker serves; stamped on every call. */
  run: string;
  /** The workspace agent whose grants this broker serves; calls run as `agent:<agent>`. */
  agent: string;
  /** When set, every request must carry this job id (`LOOM_COMMAND_JOB_ID`). */
  job?: string;
  /** A subset of the agent's grants (workspace grant syntax or manifest ids); never wider. */
  grants?: string[];
  /** Read-only grants: `true` (default) every granted read, `false` none, or a list of granted read ids. */
  readOnly?: boolean | string[];
  /** Built-ins: `true` (default) all of loom.*, `false` none, or a list of them. */
  builtins?: boolean | string[];
}

/** What the broker needs to know of a workspace to resolve a scope (filled from `@harness/workspace`). */
export interface ScopeWorkspace {
  /** The agent's resolved manifest ids, or undefined when no agent has that id. */
  agentCommands(agent: string): readonly string[] | undefined;
  /** The MCP servers the agent is granted whole (`server:<id>`); default none. */
  agentServers?(agent: string): readonly string[];
  /** Every declared agent id (for messages). */
  agentIds(): readonly string[];
  /** Whether the workspace offers the agent the host's built-ins (its `builtins`); default true. */
  agentBuiltins?(agent: string): boolean;
  /** Resolves grant strings to manifest ids, or explains why one does not resolve. */
  resolveGrants(
    grants: readonly string[],
  ): { ok: true; commands: readonly string[]; servers?: readonly string[] } | { ok: false; message: string };
  /** A command's current declared effect, or undefined when the workspace has no such command. */
  effectOf(id: string): 'read' | 'write' | undefined;
}

/** A scope resolved against a workspace: exactly what one broker admits. */
export interface ResolvedScope {
  run: string;
  agent: string;
  /** The actor every call is stamped with: `agent:<agent>`. */
  actor: string;
  job?: string;
  /** Admitted pack command ids (and `<server>.<tool>` ids granted one by one). */
  commands: ReadonlySet<string>;
  /** MCP servers admitted whole: every tool they list (`server:<id>`, CP-69). */
  servers: ReadonlySet<string>;
  /** Admitted built-ins. */
  builtins: ReadonlySet<BuiltinId>;
  /** `'reads'`: every admitted command whose current effect is read; or an explicit set; or none. */
  readOnly: 'reads' | ReadonlySet<string>;
}

const RUN_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$/;
const KEYS = new Set(['run', 'agent', 'job', 'grants', 'readOnly', 'builtins']);

// A scope given as a value rather than a file has no name to show; it is "the scope" then.
const bad = (file: string | undefined, message: string): HostError =>
  new HostError(
    HostErrorCode.scope_invalid,
    `${file === undefined ? 'scope' : `scope file ${file}`}: ${message}`,
  );

/**
 * Parses scope file text (YAML or JSON), the way every config file is read (@harness/config). Throws a
 * `scope_invalid` HostError naming the problem, and for a syntax error its line and column.
 */
export function parseScope(text: string, file?: string): ScopeFile {
  const parsed = parseYamlConfig(text);
  if (!parsed.ok) {
    const { reason, line, column } = parsed.errors[0]!;
    throw new HostError(
      HostErrorCode.scope_invalid,
      `${file === undefined ? 'scope' : `scope file ${file}`} does not parse as YAML or JSON: ${reason} at line ${line}, column ${column}`,
    );
  }
  const doc = parsed.data;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw bad(
      file,
      `expected a mapping with \`run\` and \`agent\`, found ${Array.isArray(doc) ? 'a list' : String(doc)}`,
    );
  }
  const o = doc as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!KEYS.has(k)) throw bad(file, `unknown key \`${k}\`; expected one of ${[...KEYS].join(', ')}`);
  }
  const str = (k: string, required: boolean): string | undefined => {
    const v = o[k];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string' || !RUN_PATTERN.test(v)) {
      throw bad(
        file,
        `\`${k}\` must be an identifier of 1–128 characters (letters, digits, _ . : @ -), found ${JSON.stringify(v)}`,
      );
    }
    return v;
  };
  const list = (k: string): string[] | undefined => {
    const v = o[k];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x.length > 0)) {
      throw bad(file, `\`${k}\` must be a list of non-empty strings`);
    }
    return v as string[];
  };
  const flagOrList = (k: string): boolean | string[] | undefined =>
    typeof o[k] === 'boolean' ? (o[k] as boolean) : list(k);
  const scope: ScopeFile = { run: str('run', true)!, agent: str('agent', true)! };
  const job = str('job', false);
  if (job !== undefined) scope.job = job;
  const grants = list('grants');
  if (grants !== undefined) scope.grants = grants;
  const readOnly = flagOrList('readOnly');
  if (readOnly !== undefined) scope.readOnly = readOnly;
  const builtins = flagOrList('builtins');
  if (builtins !== undefined) scope.builtins = builtins;
  return scope;
}

/** Reads and parses a scope file. */
export function readScopeFile(file: string): ScopeFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new HostError(
      HostErrorCode.scope_invalid,
      `cannot read scope file ${file}: ${(cause as NodeJS.ErrnoException).code ?? cause}`,
      {
        cause,
      },
    );
  }
  return parseScope(text, file);
}

/**
 * Resolves a scope against the workspace: the agent's grants, narrowed by the scope's `grants`.
 * A scope grant that reaches a command the agent does not hold is a load error naming the grant.
 */
export function resolveScope(scope: ScopeFile, workspace: ScopeWorkspace, file?: string): ResolvedScope {
  const held = workspace.agentCommands(scope.agent);
  if (held === undefined) {
    throw bad(
      file,
      `agent "${scope.agent}" is not declared in the workspace; declared agents: ${workspace.agentIds().join(', ') || '(none)'}`,
    );
  }
  const heldSet = new Set(held);
  const heldServers = new Set(workspace.agentServers?.(scope.agent) ?? []);
  let commands = new Set(held);
  let servers = new Set(heldServers);
  // A tool id is held when it is granted by name or its server is granted whole.
  const holds = (c: string) => heldSet.has(c) || heldServers.has(c.slice(0, Math.max(0, c.indexOf('.'))));
  if (scope.grants !== undefined) {
    commands = new Set();
    servers = new Set();
    for (const grant of scope.grants) {
      const r = workspace.resolveGrants([grant]);
      if (!r.ok) throw bad(file, `grant "${grant}" does not resolve: ${r.message}`);
      const widerServers = (r.servers ?? []).filter((s) => !heldServers.has(s));
      if (widerServers.length > 0) {
        throw bad(
          file,
          `grant "${grant}" widens agent "${scope.agent}"'s grants (it reaches server ${widerServers.join(', ')}, which the agent does not hold whole); a scope may only narrow them`,
        );
      }
      for (const s of r.servers ?? []) servers.add(s);
      const wider = r.commands.filter((c) => !holds(c));
      if (wider.length > 0) {
        throw bad(
          file,
          `grant "${grant}" widens agent "${scope.agent}"'s grants (it reaches ${wider.join(', ')}, which the agent does not hold); a scope may only narrow them`,
        );
      }
      for (const c of r.commands) commands.add(c);
    }
  }
  let builtins: Set<BuiltinId>;
  if (scope.builtins === undefined || scope.builtins === true) builtins = new Set(BUILTIN_IDS);
  else if (scope.builtins === false) builtins = new Set();
  else {
    builtins = new Set();
    for (const b of scope.builtins) {
      if (!(BUILTIN_IDS as readonly string[]).includes(b)) {
        throw bad(
          file,
          `\`builtins\` names "${b}", which is not a built-in; built-ins are ${BUILTIN_IDS.join(', ')}`,
        );
      }
      builtins.add(b as BuiltinId);
    }
  }
  // The workspace's word on its agent narrows the scope's, never widens it.
  if (workspace.agentBuiltins?.(scope.agent) === false) builtins = new Set();
  let readOnly: ResolvedScope['readOnly'];
  if (scope.readOnly === undefined || scope.readOnly === true) readOnly = 'reads';
  else if (scope.readOnly === false) readOnly = new Set();
  else {
    for (const id of scope.readOnly) {
      const dot = id.indexOf('.');
      if (
        !commands.has(id) &&
        !servers.has(id.slice(0, Math.max(0, dot))) &&
        !builtins.has(id as BuiltinId)
      ) {
        throw bad(file, `\`readOnly\` names "${id}", which this scope does not grant`);
      }
    }
    readOnly = new Set(scope.readOnly);
  }
  const resolved: ResolvedScope = {
    run: scope.run,
    agent: scope.agent,
    actor: `agent:${scope.agent}`,
    commands,
    servers,
    builtins,
    readOnly,
  };
  if (scope.job !== undefined) resolved.job = scope.job;
  return resolved;
}
