// The workspace's `mcp_servers`: the upstream MCP servers it governs beside its command packs (seed
// 003, decision 4; docs/servers.md). Each is checked at load: an id of a pack id's pattern that no
// pack uses, a transport (a stdio argv, never a shell, or a streamable HTTP URL), credentials only in
// the stdio `env` or the HTTP `headers`, a tier, and, for stdio, the sandbox it runs in.
import { dirname, isAbsolute, resolve } from 'node:path';
import { ID_PATTERN, parseByteSize, parseDuration } from '@harness/config';
import { id as idOf, strict } from '@harness/config/zod';
import { detectSandbox, type SandboxPolicy } from '@harness/exec';
import {
  PacksErrorCode as Code,
  type CredentialSource,
  type Effects,
  type PacksIssue,
  type Tier,
} from '@harness/packs';
import {
  type BuildContext,
  checkPackEnv,
  durationSchema,
  type LoadWalls,
  labelSchema,
  loadWalls,
  type Path,
  type RawPack,
  resolveSandbox,
  sandboxSchema,
  scopeSchema,
  sizeSchema,
  tierSchema,
  within,
} from '@harness/packs/loader';
import { render, TmplError } from '@harness/tmpl';
import { z } from 'zod';

const credentialName = z
  .string({ error: 'expected a credential name (a string)' })
  .regex(/^[a-z][a-z0-9_]*$/, { error: 'expected a credential name matching [a-z][a-z0-9_]*' });

const stdioTransport = strict({
  command: z
    .array(z.string({ error: 'expected an argv element (a string)' }).min(1), {
      error: 'expected command: an argv list, e.g. [node, server.js] (never a shell line)',
    })
    .min(1, { error: 'expected at least the executable in command' })
    .meta({ description: 'The server as an argv: the executable and its arguments. Never a shell.' }),
  env: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected an environment variable name' }),
      z.string({ error: 'expected an env value (a string)' }),
    )
    .optional()
    .meta({
      description:
        "The server's whole environment besides PATH (the broker's is not passed on); {{credential.NAME}} allowed here.",
    }),
  cwd: z
    .string()
    .optional()
    .meta({ description: 'Working directory, relative to the workspace file. Default: its directory.' }),
});

const httpTransport = strict({
  url: z
    .string({
      error: 'expected url: the server’s streamable HTTP endpoint, e.g. https://mcp.example.com/mcp',
    })
    .meta({ description: 'The streamable HTTP endpoint (http: only for loopback).' }),
  headers: z
    .record(z.string(), z.string({ error: 'expected a header value (a string)' }))
    .optional()
    .meta({ description: 'Request headers; {{credential.NAME}} allowed here.' }),
});

const toolDeclaration = strict({
  effects: z
    .enum(['read', 'write'], { error: 'expected effects read or write' })
    .meta({ description: 'What the tool does, as the owner declares it. Undeclared tools are writes.' }),
});

/** One entry of `mcp_servers`. */
export const serverSchema = strict({
  id: idOf('server', ID_PATTERN),
  description: z.string().optional(),
  permission: tierSchema
    .optional()
    .meta({ description: 'The tier of every tool of the server. Default cautious.' }),
  permission_overrides: z
    .record(z.string(), tierSchema)
    .optional()
    .meta({ description: 'Per upstream tool name: its tier, over the server’s permission.' }),
  transport: z
    .union([stdioTransport, httpTransport], {
      error: 'expected transport { command: [argv…], env } (stdio) or { url, headers } (streamable HTTP)',
    })
    .meta({ description: 'stdio: an argv the broker starts (confined); HTTP: a URL it connects to.' }),
  credentials_ref: z
    .union([credentialName, z.array(credentialName)], {
      error: 'expected a credential name or a list of them',
    })
    .optional()
    .meta({ description: 'The credentials the server’s env or headers may name.' }),
  sandbox: sandboxSchema.optional().meta({
    description:
      'Where a stdio server runs: by default the filesystem read-only minus the deny list, no network, no Unix socket, a private /tmp. Widen what it needs; false: unconfined.',
  }),
  timeout: durationSchema.optional().meta({ description: 'How long one tool call may take. Default 60s.' }),
  start_timeout: durationSchema.optional().meta({
    description: 'How long the server may take to answer initialize and its first tools/list. Default 30s.',
  }),
  max_output: sizeSchema.optional().meta({ description: 'Ceiling on one call’s answer. Default 1MiB.' }),
  tools: z
    .record(z.string(), toolDeclaration)
    .optional()
    .meta({ description: 'The owner’s declarations, per upstream tool name: its effects.' }),
  pin: z.boolean().optional().meta({
    description:
      'Whether a person must accept each tool definition (its hash) before an agent sees or calls it. Default true; false serves every listed tool as listed, with a load warning.',
  }),
  trust_annotations: z.boolean().optional().meta({
    description:
      'Lets an accepted (pinned) definition’s annotations.readOnlyHint: true count as a read, unless tools declares the tool’s effects. Not with pin: false.',
  }),
  scopes: z
    .array(scopeSchema)
    .optional()
    .meta({ description: 'Scopes a caller must hold for any tool of the server.' }),
  label: labelSchema.optional(),
});

/** The `mcp_servers` list. */
export const serversSchema = z.array(serverSchema, { error: 'expected a list of MCP servers' });

type RawServer = z.input<typeof serverSchema>;

/** How the broker reaches a server: an argv it starts, or a URL it connects to. Templates unrendered. */
export type ServerTransport =
  | {
      readonly kind: 'stdio';
      readonly command: readonly string[];
      /** Values may hold `{{credential.NAME}}`, rendered when the server starts. */
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string;
    }
  | { readonly kind: 'http'; readonly url: string; readonly headers: Readonly<Record<string, string>> };

/** An upstream MCP server the workspace governs, every default resolved. */
export interface McpServer {
  readonly id: string;
  readonly description?: string;
  readonly tier: Tier;
  readonly overrides: Readonly<Record<string, Tier>>;
  readonly transport: ServerTransport;
  readonly credentials: readonly string[];
  /** The stdio server's walls; `null`: unconfined (HTTP, `sandbox: false`, no mechanism, mode off). */
  readonly sandbox: SandboxPolicy | null;
  /** Why a stdio server runs unconfined, when it does. */
  readonly unconfined?: string;
  readonly timeoutMs: number;
  readonly startTimeoutMs: number;
  readonly maxOutputBytes: number;
  /** Declared effects per upstream tool name; a tool not here is a write (SV-05). */
  readonly tools: Readonly<Record<string, Effects>>;
  /** Whether each tool definition must be accepted by a person before it is served (SV-18); default true. */
  readonly pin: boolean;
  /** Whether an accepted definition's `readOnlyHint: true` counts as a read for an undeclared tool (SV-07). */
  readonly trustAnnotations: boolean;
  readonly scopes: readonly string[];
  readonly label?: Readonly<Record<string, unknown>>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_START_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_OUTPUT = 1024 * 1024;

/** A tool's tier: its override, else the server's (SV-03). */
export function serverToolTier(server: McpServer, upstream: string): Tier {
  return server.overrides[upstream] ?? server.tier;
}

/**
 * A tool's effects as declared; undeclared is `write` (SV-05). A server's annotations count only
 * where its entry says `trust_annotations` and the definition a person accepted says
 * `readOnlyHint: true` (`pinnedReadOnly`), and never over a declaration (SV-07).
 */
export function serverToolEffects(server: McpServer, upstream: string, pinnedReadOnly = false): Effects {
  return server.tools[upstream] ?? (server.trustAnnotations && pinnedReadOnly ? 'read' : 'write');
}

/**
 * Builds each server entry: ids (unique, none a pack's), the transport, credentials only in env or
 * headers (SV-11), the sandbox of a stdio server (SV-12). Issues go to `issues`.
 */
export function buildServers(
  raw: readonly RawServer[],
  packIds: readonly string[],
  ctx: BuildContext,
  issues: PacksIssue[],
  warnings: PacksIssue[],
): McpServer[] {
  const dir = dirname(resolve(ctx.file));
  const seen = new Map<string, number>();
  let walls: LoadWalls | undefined;
  const out: McpServer[] = [];
  raw.forEach((rs, i) => {
    const at: Path = ['mcp_servers', i];
    const before = issues.length;
    checkId(rs.id, i, seen, packIds, ctx, issues);
    const credentials = rs.credentials_ref === undefined ? [] : [rs.credentials_ref].flat();
    const transport = buildTransport(rs, dir, at, credentials, ctx, issues);
    checkPinning(rs, at, ctx, issues, warnings);
    let sandbox: SandboxPolicy | null = null;
    if (transport?.kind === 'stdio' && rs.sandbox !== false) {
      walls ??= loadWalls(ctx.options);
      // A server is confined as a read command of a pack is: nothing writable unless it says so.
      const asPack = { id: rs.id, sandbox: rs.sandbox, commands: [{ id: 'server' }] } as unknown as RawPack;
      sandbox = resolveSandbox(asPack, 0, 'read', transport.cwd, at, { ...ctx, walls }, issues);
      if (sandbox !== null) warnHiddenProgram(rs.id, transport.command, sandbox, at, ctx, warnings);
    }
    if (issues.length > before || transport === undefined) return;
    out.push(
      Object.freeze({
        id: rs.id,
        ...(rs.description === undefined ? {} : { description: rs.description }),
        tier: rs.permission ?? 'cautious',
        overrides: Object.freeze({ ...rs.permission_overrides }),
        transport,
        credentials: Object.freeze(credentials),
        sandbox,
        ...(transport.kind === 'stdio' && rs.sandbox === false
          ? { unconfined: 'its entry says sandbox: false' }
          : {}),
        timeoutMs: rs.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseDuration(rs.timeout)!,
        startTimeoutMs:
          rs.start_timeout === undefined ? DEFAULT_START_TIMEOUT_MS : parseDuration(rs.start_timeout)!,
        maxOutputBytes: rs.max_output === undefined ? DEFAULT_MAX_OUTPUT : parseByteSize(rs.max_output)!,
        tools: Object.freeze(
          Object.fromEntries(Object.entries(rs.tools ?? {}).map(([k, v]) => [k, v.effects])),
        ),
        pin: rs.pin !== false,
        trustAnnotations: rs.trust_annotations === true,
        scopes: Object.freeze([...(rs.scopes ?? [])]),
        ...(rs.label === undefined ? {} : { label: rs.label as Record<string, unknown> }),
      }),
    );
  });
  return out;
}

/**
 * A warning for each absolute path of a confined server's argv that its sandbox hides: under the
 * home (which a confined run sees only where its toolchains and `filesystem.home` entries are), or
 * denied. Such a server fails at start with "cannot find module" or "no such file"; the warning
 * says so at load, with the entry that shows the file.
 */
function warnHiddenProgram(
  server: string,
  command: readonly string[],
  sandbox: SandboxPolicy,
  at: Path,
  ctx: BuildContext,
  warnings: PacksIssue[],
): void {
  command.forEach((element, ei) => {
    if (!isAbsolute(element)) return;
    const home = sandbox.home;
    const denied = within(element, sandbox.deny ?? []);
    const hidden =
      home !== undefined &&
      within(element, [home.dir]) &&
      !within(element, [...home.visible, ...(sandbox.write ?? [])]);
    if (!denied && !hidden) return;
    const show = dirname(element);
    const fix = denied
      ? 'it is on the deny list of secrets no confined run may read; install the server elsewhere, or set sandbox: false'
      : `show its folder with sandbox: { filesystem: { home: [${JSON.stringify(show)}] } } (read-only), install it outside the home, or set sandbox: false`;
    warnings.push(
      ctx.issue(
        Code.server_program_hidden,
        [...at, 'transport', 'command', ei],
        `server "${server}": ${element} is hidden from the server by its sandbox, so it will not start; ${fix}`,
        { server, path: element, show },
      ),
    );
  });
}

/**
 * `pin: false` is a warning (its tools reach agents as listed, changed or not); `trust_annotations`
 * with it is an error: with nothing pinned, a server's annotations would decide an effect on its
 * word alone (SV-07).
 */
function checkPinning(
  rs: RawServer,
  at: Path,
  ctx: BuildContext,
  issues: PacksIssue[],
  warnings: PacksIssue[],
): void {
  if (rs.pin !== false) return;
  if (rs.trust_annotations === true) {
    issues.push(
      ctx.issue(
        Code.server_unsupported,
        [...at, 'trust_annotations'],
        `server "${rs.id}": trust_annotations needs pinned definitions, and its entry says pin: false, so there is no accepted definition to trust; remove pin: false, or declare the tool's effects under tools: { <name>: { effects: read } } instead`,
        { server: rs.id, key: 'trust_annotations' },
        true,
      ),
    );
    return;
  }
  warnings.push(
    ctx.issue(
      Code.server_unpinned,
      [...at, 'pin'],
      `server "${rs.id}": pin: false, so its tools reach agents as it lists them, and a definition it changes (a description, a schema) is served without a person's review; remove pin: false to review each definition (harness servers review ${rs.id})`,
      { server: rs.id },
      true,
    ),
  );
}

/** A server id declared twice, or one a pack already uses (a grant could not tell them apart). */
function checkId(
  id: string,
  i: number,
  seen: Map<string, number>,
  packIds: readonly string[],
  ctx: BuildContext,
  issues: PacksIssue[],
): void {
  const first = seen.get(id);
  if (first !== undefined) {
    const p = ctx.loc.at(['mcp_servers', first, 'id']);
    issues.push(
      ctx.issue(
        Code.duplicate_id,
        ['mcp_servers', i, 'id'],
        `server id "${id}" is declared twice: here and at ${ctx.file}:${p.line}:${p.column}`,
        { kind: 'server', id, first: p },
      ),
    );
    return;
  }
  seen.set(id, i);
  if (packIds.includes(id)) {
    issues.push(
      ctx.issue(
        Code.duplicate_id,
        ['mcp_servers', i, 'id'],
        `server id "${id}" is also a pack id: a grant "${id}.<name>" could not tell them apart; rename the server (e.g. ${id}-mcp)`,
        { kind: 'server', id },
      ),
    );
  }
}

/** The transport of one entry, its credential placeholders checked; `undefined` when it has issues. */
function buildTransport(
  rs: RawServer,
  dir: string,
  at: Path,
  credentials: readonly string[],
  ctx: BuildContext,
  issues: PacksIssue[],
): ServerTransport | undefined {
  const before = issues.length;
  const t = rs.transport;
  if ('command' in t) {
    t.command.forEach((element, ei) => {
      noCredential(element, [...at, 'transport', 'command', ei], 'its argv', rs.id, ctx, issues);
    });
    const env = t.env ?? {};
    checkPackEnv(env, credentials, rs.id, [...at, 'transport'], ctx, issues);
    if (issues.length > before) return undefined;
    return Object.freeze({
      kind: 'stdio',
      command: Object.freeze([...t.command]),
      env: Object.freeze({ ...env }),
      cwd: resolve(dir, t.cwd ?? '.'),
    });
  }
  noCredential(t.url, [...at, 'transport', 'url'], 'its URL', rs.id, ctx, issues);
  let url: URL | undefined;
  try {
    url = new URL(t.url);
  } catch {
    issues.push(
      ctx.issue(
        Code.schema,
        [...at, 'transport', 'url'],
        `server "${rs.id}": url is not a URL; expected e.g. https://mcp.example.com/mcp`,
        {
          expected: 'an http(s) URL',
          found: JSON.stringify(t.url),
        },
      ),
    );
  }
  if (url !== undefined && !isAllowedUrl(url)) {
    issues.push(
      ctx.issue(
        Code.schema,
        [...at, 'transport', 'url'],
        `server "${rs.id}": url must be https:, or http: on a loopback address (headers carry credentials); found ${url.protocol}//${url.host}`,
        { expected: 'https:, or http: on loopback', found: `${url.protocol}//${url.host}` },
      ),
    );
  }
  const headers = t.headers ?? {};
  // Header values take credentials as env values do: the same check, the same messages.
  checkPackEnv(headers, credentials, rs.id, [...at, 'transport'], ctx, issues);
  if (issues.length > before) return undefined;
  return Object.freeze({ kind: 'http', url: t.url, headers: Object.freeze({ ...headers }) });
}

/** https:, or http: on a loopback host. */
function isAllowedUrl(url: URL): boolean {
  if (url.protocol === 'https:') return true;
  if (url.protocol !== 'http:') return false;
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || url.hostname.startsWith('127.');
}

/** A `{{credential.*}}` outside env and headers is an error: an argv is visible in `ps`, a URL in logs (SV-11). */
function noCredential(
  text: string,
  at: Path,
  where: string,
  server: string,
  ctx: BuildContext,
  issues: PacksIssue[],
): void {
  const match = /\{\{\s*(credential\.[a-z0-9_]*)\s*\}\}/.exec(text);
  if (match === null) {
    // Any other placeholder is refused too: nothing is rendered in an argv or a URL.
    if (text.includes('{{')) {
      issues.push(
        ctx.issue(
          Code.template,
          at,
          `server "${server}": ${where} takes no placeholder; write the value itself`,
          {
            reason: 'untrusted_in_argv',
          },
        ),
      );
    }
    return;
  }
  issues.push(
    ctx.issue(
      Code.credential_in_argv,
      at,
      `server "${server}": {{${match[1]}}} in ${where}: credentials reach a server only through transport.env (stdio) or transport.headers (HTTP), never its argv or URL`,
      { placeholder: match[1]! },
    ),
  );
}

/**
 * Applies `sandbox_mode` to the stdio servers that asked for walls: `off` runs them unconfined;
 * where no mechanism works, `preferred` runs them unconfined with one warning and `required` leaves
 * them out with one (as it does packs).
 */
export function applyServerSandboxMode(
  servers: readonly McpServer[],
  mode: 'required' | 'preferred' | 'off',
  ctx: BuildContext,
  warnings: PacksIssue[],
): McpServer[] {
  const confined = servers.filter((s) => s.sandbox !== null);
  if (confined.length === 0) return [...servers];
  const without = (s: McpServer, why: string): McpServer =>
    s.sandbox === null ? s : Object.freeze({ ...s, sandbox: null, unconfined: why });
  if (mode === 'off') return servers.map((s) => without(s, 'sandbox_mode is off'));
  if (ctx.asDeclared) return [...servers];
  const found = detectSandbox({ path: ctx.options.sandboxPath ?? process.env.PATH });
  if (found.available) return [...servers];
  const ids = confined.map((s) => s.id).join(', ');
  warnings.push(
    ctx.issue(
      Code.sandbox_unavailable,
      ['sandbox_mode'],
      mode === 'preferred'
        ? `sandbox_mode preferred: ${found.reason}, so MCP server(s) ${ids} run unconfined; to confine them: ${found.hint}`
        : `sandbox_mode required: ${found.reason}, so MCP server(s) ${ids} are left out; to confine them: ${found.hint}`,
      { mode, packs: confined.map((s) => s.id), hint: found.hint },
      true,
    ),
  );
  if (mode === 'preferred') return servers.map((s) => without(s, `no sandbox works here: ${found.reason}`));
  return servers.filter((s) => s.sandbox === null);
}

/** A server's env (stdio) or headers (HTTP) with credentials filled in, and the secrets they hold. */
export type ServerSecrets =
  | {
      readonly ok: true;
      readonly values: Readonly<Record<string, string>>;
      readonly secrets: readonly string[];
    }
  | { readonly ok: false; readonly message: string };

/**
 * Renders a server's `env` or `headers` with the credentials it names (SV-11). A credential with no
 * value is an error naming it, never an empty string; values are never part of a message.
 */
export function renderServerSecrets(
  server: McpServer,
  credentials: CredentialSource | undefined,
): ServerSecrets {
  const t = server.transport;
  const templates = t.kind === 'stdio' ? t.env : t.headers;
  const values: Record<string, string> = {};
  const secrets: string[] = [];
  const missing: string[] = [];
  const getter = {
    get(path: string): unknown {
      const name = path.slice('credential.'.length);
      const value = credentials?.get(name);
      if (typeof value !== 'string' || value === '') {
        missing.push(name);
        return undefined;
      }
      secrets.push(value);
      return value;
    },
  };
  for (const [key, template] of Object.entries(templates)) {
    try {
      values[key] = render(template, getter);
    } catch (error) {
      if (!(error instanceof TmplError)) throw error;
    }
  }
  if (missing.length > 0)
    return {
      ok: false,
      message: `MCP server "${server.id}" needs credential(s) ${[...new Set(missing)].join(', ')}, which the instance's credentials.json does not hold; add them (docs/servers.md, "Credentials")`,
    };
  return { ok: true, values, secrets };
}
