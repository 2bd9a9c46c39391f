// `harness serve`: the host command tools (and Loom authoring tools) as an MCP server, over stdio by
// default or over streamable HTTP. Over HTTP each MCP session is its own run.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HarnessTool, ToolProgress } from '@harness/commands';
import { parseDuration, RETENTION_WINDOW } from '@harness/config';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { version } from '../../package.json';
import { parse } from '../args';
import {
  APPROVAL_FORM,
  APPROVAL_MODES,
  type ApprovalApi,
  type ApprovalMode,
  approvalAction,
  type PersonChannel,
  withElicitation,
} from '../elicit';
import { startFailureLines } from '../embedded';
import { CliError, debugRequested, describeFailure } from '../errors';
import { sessionFlags, sessionFlagsHelp, sessionOptions } from '../flags';
import { type HttpToken, resolveHttpToken } from '../http-token';
import { type JsonRpcError, MAX_MESSAGE_BYTES, messageTooLarge, PARSE_ERROR } from '../mcp-framing';
import { type McpCall, startTelemetry, type Telemetry, telemetryOptions } from '../otel';
import { err, out } from '../output';
import { openSession, type Session } from '../session';
import { withExecute } from '../tool-wrap';

// Bounds of the HTTP transport's sessions: each holds an MCP server and a run.
const DEFAULT_MAX_SESSIONS = 32;
const DEFAULT_SESSION_IDLE_MS = 15 * 60 * 1000;

const help = `Usage: harness serve [--workspace <file> --agent <id>] [--http <host:port>] [--token-file <path>] [--approvals elicit|queue] [--keep-going] [configuration]

Serves list_commands, run_command and run_read_command (and loom_compose, loom_inspect,
loom_authoring_context) to an MCP client. Over stdio by default: point your MCP client's
"command" at \`harness serve\`. With no host configuration, serve opens the embedded default:
an instance directory with the example workspace and a broker in this process (it prints where).
Started in a project harness init set up (or a directory below it), it serves that project.

Your own commands: harness serve --workspace ./my-workspace.yaml --instance ~/.local/share/harness/mine --agent me

${sessionFlagsHelp}

Start-up:
  A host that cannot start (a workspace that does not load, an agent it does not declare, an
  instance directory or store it cannot use) ends serve before it answers anything: why on
  stderr (each workspace error as file:line:column), exit 3 (4: the socket is held).
  --keep-going         over stdio, serve anyway: the tools are listed and every call answers
                       host_unavailable with the reason, until serve is started again

Transport:
  --http <host:port>   serve streamable HTTP at http://host:port/mcp instead of stdio.
                       Loopback by default (127.0.0.1). Every request must carry
                       "Authorization: Bearer <token>": the token is read from --token-file,
                       else HARNESS_HTTP_TOKEN, else generated once into <instance>/http-token
                       (mode 0600; serve prints where). Never pass a token in argv.
  --token-file <path>  read the bearer token from the first line of this file (mode 0600)
  --max-sessions <n>   live MCP sessions at most (default ${DEFAULT_MAX_SESSIONS}); another initialize gets 503
  --session-idle <ms>  close a session nobody used for this long (default ${DEFAULT_SESSION_IDLE_MS})
  --heartbeat <ms>     while a single call runs, send the client a progress notification this
                       often when it asked for progress (default 1000; 0 turns it off), until
                       the broker reports the call's own progress (time in flight, bytes of
                       output so far; every 2 s after the first 2 s), which is then sent
                       instead. A batch reports progress as its calls settle.

Protocol versions (docs/cli.md, "Protocol versions"):
  MCP 2025-06-18 and 2025-11-25 clients (an initialize first) and 2026-07-28 clients (the version
  in each request's _meta; server/discover) alike, over stdio and HTTP. For a 2026 client an
  approval is asked through an input_required result instead of an elicitation request.

Telemetry (docs/observability.md):
  --otel <url>         export traces and metrics over OTLP/HTTP to this base URL (e.g.
                       http://127.0.0.1:4318; /v1/traces and /v1/metrics are added). Without
                       it, OTEL_EXPORTER_OTLP_ENDPOINT turns the same export on. A span per
                       tool call, child spans per broker round trip, approval wait and run;
                       never an argument value or a command's output.
  --metrics            with --http: serve the same metrics as Prometheus text at /metrics
                       (bearer token required, like /mcp)

Cancellation:
  A client that cancels a call (notifications/cancelled) stops it: the broker kills a running
  pack command's process group, and the audit row of the call says cancelled. Calls of a batch
  not yet sent are not sent. A built-in (loom_compose …) runs to its end.

Approvals:
  --approvals <mode>   who decides a strict call the host holds for approval:
                       elicit (default where the instance is known): when the MCP client
                       declared the elicitation capability, the person is asked in that
                       client, shown the exact values and argv (credentials never); Accept
                       approves that exact call and it runs once, Decline denies it, Cancel
                       leaves it waiting as with queue. A client without elicitation gets
                       queue. Needs the instance directory: the embedded default's, or
                       --instance <dir> beside a host configuration;
                       queue (the default without one): it waits for the console or
                       \`harness approvals approve\`.

Store:
  --retention <30d>    the embedded broker prunes audit events and spent approvals older than
                       this (30d, 12h, 90m) at start and every hour; default: kept until
                       'loom audit prune'. Receipts are never pruned.`;

/** Runs `harness serve`. */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parse(
    argv,
    {
      ...sessionFlags,
      http: { type: 'string' },
      token: { type: 'string' },
      'token-file': { type: 'string' },
      'max-sessions': { type: 'string' },
      'session-idle': { type: 'string' },
      heartbeat: { type: 'string' },
      approvals: { type: 'string' },
      retention: { type: 'string' },
      otel: { type: 'string' },
      metrics: { type: 'boolean' },
      'keep-going': { type: 'boolean' },
    },
    false,
  );
  if (values.help) {
    out(help);
    return 0;
  }
  const { listen, limits, heartbeatMs, keepGoing } = transportFlags(values);
  // Elicitation is offered by default: a client that never declared it is not asked anyway.
  const approvals = (values.approvals ?? 'elicit') as ApprovalMode;
  if (!APPROVAL_MODES.includes(approvals))
    throw new CliError(
      'usage',
      `--approvals must be ${APPROVAL_MODES.join(' or ')}, found '${values.approvals}'`,
    );
  // A token given by file or environment is checked before anything is opened or created.
  let given: HttpToken | undefined;
  if (listen !== undefined && (values['token-file'] !== undefined || process.env.HARNESS_HTTP_TOKEN))
    given = resolveHttpToken(values['token-file'], '');
  const retentionMs = values.retention === undefined ? undefined : parseRetention(values.retention);
  if (values.metrics === true && listen === undefined)
    throw new CliError(
      'usage',
      '--metrics serves /metrics on the HTTP listener; give --http <host:port> too (over stdio, export with --otel <url>)',
    );
  // The SDK is loaded only when telemetry is asked for: a serve without it loads none of it.
  const otel = telemetryOptions(values.otel, values.metrics === true, process.env);
  // Over stdio the embedded host starts in the background while the MCP server loads (initialize and
  // tools/list need none of it); with --keep-going the transport does not wait for it, and the first
  // call that needs it does. Over HTTP it starts before the listener: the generated token lives in
  // the instance directory the start creates.
  const session = await openSession(
    { ...sessionOptions(values), retentionMs, log: err },
    { background: true },
  );
  // The host's start begins now, beside the MCP server's own loading. Unless the person asked to
  // keep going, serve answers nothing until it has started, so a workspace that does not load ends
  // serve (and its client shows the server failed, and why) instead of serving failures.
  const started = keepGoing ? undefined : settle(session.ready());
  if (session.tools.length === 0) {
    await session.close();
    throw new CliError(
      'config',
      'nothing to serve: no tool is configured; give --loom-commands-config and/or --loom-authoring-config (or drop --no-embedded)',
    );
  }
  let approvalsInstance: string | undefined;
  if (approvals === 'elicit') {
    approvalsInstance = session.location?.instanceDir ?? sessionOptions(values).instance;
    // By default, a host configuration without --instance falls back to queue: there is no
    // instance to decide in. Asked for by name, that is a usage error.
    if (approvalsInstance === undefined && values.approvals !== undefined) {
      await session.close();
      throw new CliError(
        'usage',
        '--approvals elicit decides approvals in the host instance directory; with a host configuration pass --instance <dir> naming that instance',
      );
    }
  }
  const telemetry = otel === undefined ? undefined : await startTelemetry(otel, version);
  const serving: Serving = { session, heartbeatMs, approvalsInstance, telemetry };
  const stop = async () => {
    await session.close();
    await telemetry?.shutdown();
  };
  if (listen === undefined) {
    const failed = await serveStdio(serving, started);
    if (failed !== undefined) return endUnstarted(failed.error, stop, true);
  } else {
    const failed = await started;
    if (failed !== undefined) return endUnstarted(failed.error, stop, false);
    let token: HttpToken;
    try {
      token = given ?? resolveHttpToken(undefined, httpTokenPath(session));
    } catch (error) {
      await stop();
      throw error;
    }
    await serveHttp(serving, listen, token, limits);
  }
  // With --keep-going, a start that fails is said here once; every call answers it (docs/cli.md,
  // "Start-up"). Without it, the start has succeeded by now.
  session.ready().catch((error: unknown) => {
    for (const line of describeFailure(error, debugRequested()).lines) err(line);
  });
  const why = await new Promise<'signal' | 'client_gone'>((resolve) => {
    process.once('SIGINT', () => resolve('signal'));
    process.once('SIGTERM', () => resolve('signal'));
    if (listen === undefined) {
      process.stdin.once('end', () => resolve('client_gone'));
      process.stdin.once('close', () => resolve('client_gone'));
    }
  });
  if (why === 'signal') {
    await stop();
    return 0;
  }
  // Nobody is left to read an answer: calls in flight get a short grace, then the process exits;
  // its exit kills their process groups (and a broker's next start reaps what it recorded).
  await Promise.race([stop(), new Promise((resolve) => setTimeout(resolve, CLIENT_GONE_GRACE_MS).unref())]);
  process.exit(0);
}

/** The flags of serve's transport, checked before anything is opened. */
function transportFlags(values: {
  http?: string | undefined;
  token?: string | undefined;
  'max-sessions'?: string | undefined;
  'session-idle'?: string | undefined;
  heartbeat?: string | undefined;
  'keep-going'?: boolean | undefined;
}) {
  if (values.token !== undefined) {
    throw new CliError(
      'usage',
      '--token is no longer accepted: a token in argv is visible to every user of the machine through ps; put it in a file only you can read and pass --token-file <path>, or set HARNESS_HTTP_TOKEN',
    );
  }
  const listen = values.http === undefined ? undefined : parseListen(values.http);
  const limits = {
    maxSessions: wholeNumber(values['max-sessions'], '--max-sessions', DEFAULT_MAX_SESSIONS, 1),
    idleMs: wholeNumber(values['session-idle'], '--session-idle', DEFAULT_SESSION_IDLE_MS, 1),
  };
  const heartbeatMs = wholeNumber(values.heartbeat, '--heartbeat', 1000, 0);
  const keepGoing = values['keep-going'] === true;
  if (keepGoing && listen !== undefined)
    throw new CliError(
      'usage',
      '--keep-going serves over stdio only: over HTTP the host starts before serve listens (the token it generates lives in its instance directory), so a host that cannot start always ends serve; drop --keep-going',
    );
  return { listen, limits, heartbeatMs, keepGoing };
}

/** A promise's failure as a value: undefined once it fulfils, else what it rejected with. */
function settle(promise: Promise<void>): Promise<{ error: unknown } | undefined> {
  return promise.then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
}

/** Ends a serve whose host did not start, before it served anything: why on stderr, its exit code. */
async function endUnstarted(error: unknown, stop: () => Promise<void>, stdio: boolean): Promise<number> {
  for (const line of startFailureLines(error, debugRequested())) err(line);
  err(stdio ? `${NOTHING_SERVED}, ${KEEP_GOING_HINT}` : NOTHING_SERVED);
  await stop();
  return describeFailure(error, false).exitCode;
}

/** `--retention`: a retention window (`30d`, `12h`, `90m`), the syntax of `loom audit prune --before`. */
export function parseRetention(text: string): number {
  const ms = parseDuration(text, RETENTION_WINDOW);
  if (ms === undefined)
    throw new CliError('usage', `--retention must be a duration such as 30d, 12h or 90m, found '${text}'`);
  return ms;
}

// How long calls in flight may still finish after the stdio client went away.
const CLIENT_GONE_GRACE_MS = 1_000;

function wholeNumber(value: string | undefined, flag: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min)
    throw new CliError(
      'usage',
      `${flag} must be a whole number${min > 0 ? ' above 0' : ''}, found '${value}'`,
    );
  return n;
}

/** Where a generated HTTP token lives: the embedded instance's directory, else harness's data dir. */
function httpTokenPath(session: Session): string {
  const instance = session.location?.instanceDir;
  if (instance !== undefined) return join(instance, 'http-token');
  const dataHome = process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(dataHome, 'harness', 'http-token');
}

/**
 * Wraps a tool so a single call that runs longer than `everyMs` sends progress notifications while
 * it runs, until its host reports progress of its own (a broker sends a call's time in flight and
 * output so far every 2 s after the first 2 s): from then on those reports are the notifications.
 * Every report, the tool's own included, is renumbered to keep increasing, as MCP requires; a batch
 * keeps the tool's own reports.
 */
export function withHeartbeat(tool: HarnessTool, everyMs: number): HarnessTool {
  return withExecute(tool, async (input, ctx) => {
    const report = ctx.onProgress;
    if (report === undefined) return tool.execute(input, ctx);
    const batch = typeof input === 'object' && input !== null && 'calls' in input;
    let last = 0;
    let timer: NodeJS.Timeout | undefined;
    const send = (p: ToolProgress) => {
      // The host's own report says more than a heartbeat: the heartbeat stops.
      if (p.elapsedMs !== undefined && timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
      }
      const progress = Math.max(p.progress, last + 1);
      last = progress;
      report({
        ...p,
        progress,
        ...(p.total !== undefined ? { total: Math.max(p.total, progress) } : {}),
      });
    };
    const started = Date.now();
    if (!batch)
      timer = setInterval(() => {
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        send({ progress: last + 1, message: `${tool.name} still running (${seconds}s)` });
      }, everyMs);
    try {
      return await tool.execute(input, { ...ctx, onProgress: send });
    } finally {
      clearInterval(timer);
    }
  });
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/** The host name of a `Host` header or an `Origin` URL, without port or IPv6 brackets. */
function hostnameOf(value: string | undefined, isOrigin: boolean): string | undefined {
  if (value === undefined) return undefined;
  try {
    return new URL(isOrigin ? value : `http://${value}`).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return '';
  }
}

/**
 * On a loopback address, a request must also name a loopback host, and come from a loopback page
 * if it comes from a page at all: otherwise a web page the person visits could reach the tools
 * through DNS rebinding (its own name resolving to 127.0.0.1) or a cross-site request.
 */
function loopbackRequest(req: IncomingMessage): boolean {
  const host = hostnameOf(req.headers.host, false);
  if (host === undefined || !isLoopback(host)) return false;
  const origin = req.headers.origin;
  return origin === undefined || isLoopback(hostnameOf(origin, true) ?? '');
}

function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value) ?? /^()()(\d{1,5})$/.exec(value);
  if (!match) throw new CliError('usage', `--http must be host:port or port, found '${value}'`);
  const host = match[1] || match[2] || '127.0.0.1';
  const port = Number(match[3]);
  if (port > 65535) throw new CliError('usage', `--http port must be 0-65535, found ${port}`);
  return { host, port };
}

// The tools/list answer, built once per session: the SDK would convert every tool's input schema
// from zod to JSON Schema on each request, and each tool holds its JSON Schema already, generated
// once from its zod input schema (`HarnessTool.inputSchema`). Each tool's outputSchema is the one
// registerMcpTools checks results with, generated from the tool's outcome schema
// (`toolOutputSchema` of @harness/commands/mcp).
const toolLists = new WeakMap<Session, { tools: Record<string, unknown>[] }>();

function toolList(
  session: Session,
  outputSchema: (tool: string) => Record<string, unknown>,
): { tools: Record<string, unknown>[] } {
  let list = toolLists.get(session);
  if (list === undefined) {
    list = {
      tools: session.tools.map((t) => ({
        name: t.name,
        title: t.annotations.title,
        description: t.description,
        inputSchema: t.inputSchema,
        outputSchema: outputSchema(t.name),
        annotations: { ...t.annotations },
      })),
    };
    toolLists.set(session, list);
  }
  return list;
}

/** What every MCP server of one `harness serve` shares. */
interface Serving {
  session: Session;
  heartbeatMs: number;
  /** The instance whose approvals the person decides through elicitation; unset without `--approvals elicit`. */
  approvalsInstance: string | undefined;
  /** Spans and metrics of every call (`--otel`, `--metrics`); unset: none, and nothing of OTel loaded. */
  telemetry: Telemetry | undefined;
}

/**
 * What serve-modern.ts needs to answer 2026-07-28 clients: the same tools (with the heartbeat;
 * approvals go through `input_required` there, not elicitation requests), the same `tools/list`.
 */
async function modernServing({
  session,
  heartbeatMs,
  approvalsInstance,
  telemetry,
}: Serving): Promise<import('./serve-modern').ModernServing> {
  const { toolOutputSchema } = await import('@harness/commands/mcp');
  return {
    tools: heartbeatMs > 0 ? session.tools.map((t) => withHeartbeat(t, heartbeatMs)) : session.tools,
    list: () => toolList(session, toolOutputSchema),
    context: (signal, run) => session.context(signal, run),
    approvals: approvalsInstance === undefined ? undefined : approvalApi(approvalsInstance),
    telemetry,
  };
}

/**
 * The SDK's JSON Schema validator (it checks the answers to elicitation requests), shared by every
 * server of this process and built at its first use: building it with each server (a new Ajv with
 * its formats and meta-schema) was a large part of the work before serve's first answer.
 */
let validator: import('@modelcontextprotocol/sdk/validation/ajv').AjvJsonSchemaValidator | undefined;

async function sharedValidator(): Promise<jsonSchemaValidator> {
  const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/sdk/validation/ajv');
  return {
    getValidator: (schema) => {
      validator ??= new AjvJsonSchemaValidator();
      return validator.getValidator(schema);
    },
  };
}

async function newMcpServer({ session, heartbeatMs, approvalsInstance, telemetry }: Serving, runId: string) {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { ListToolsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const { registerMcpTools, toolOutputSchema } = await import('@harness/commands/mcp');
  const server = new McpServer(
    { name: 'harness', version },
    { capabilities: { tools: {} }, jsonSchemaValidator: await sharedValidator() },
  );
  const run = runId === 'stdio' ? session.run : session.newRun(runId);
  // The host binds each approval this MCP session asks for to this id: another session of the same
  // agent (another client window, another HTTP session) cannot consume it (docs/host.md, "Approvals").
  const approvalSession = randomUUID();
  // The MCP request of each call, by its cancel signal: an elicitation is sent as part of it.
  const requests = new WeakMap<AbortSignal, string | number>();
  // The W3C trace context each call's request carried in its `_meta`, by its cancel signal.
  const traceContexts = new WeakMap<AbortSignal, Readonly<Record<string, string>>>();
  let tools = session.tools;
  if (approvalsInstance !== undefined) {
    const channel = personChannel(server, requests);
    const api = approvalApi(approvalsInstance);
    tools = tools.map((t) =>
      t.name === 'run_command' || t.name === 'run_read_command' ? withElicitation(t, channel, api) : t,
    );
  }
  if (heartbeatMs > 0) tools = tools.map((t) => withHeartbeat(t, heartbeatMs));
  if (telemetry !== undefined) {
    const mcpCall = (signal: AbortSignal | undefined): McpCall => ({
      requestId: signal === undefined ? undefined : requests.get(signal),
      sessionId: server.server.transport?.sessionId,
      transport: runId === 'stdio' ? 'stdio' : 'http',
      traceContext: signal === undefined ? undefined : traceContexts.get(signal),
    });
    tools = tools.map((t) => telemetry.instrument(t, mcpCall));
  }
  registerMcpTools(server, tools, ({ signal, requestId, meta }) => {
    requests.set(signal, requestId);
    if (meta?.traceparent !== undefined) traceContexts.set(signal, meta);
    return { ...session.context(signal, run), session: approvalSession };
  });
  // Only this session's tools are on this server, and they never change while it serves.
  server.server.setRequestHandler(ListToolsRequestSchema, () => toolList(session, toolOutputSchema) as never);
  return server;
}

/** The person behind this server's MCP client, reached by elicitation while the client supports it. */
function personChannel(
  server: import('@modelcontextprotocol/sdk/server/mcp.js').McpServer,
  requests: WeakMap<AbortSignal, string | number>,
): PersonChannel {
  return {
    available: () => server.server.getClientCapabilities()?.elicitation?.form !== undefined,
    decidedBy: () => {
      // The client names itself; only a bounded, plain form of that name is recorded.
      const name = (server.server.getClientVersion()?.name ?? 'mcp-client')
        .replace(/[^A-Za-z0-9._-]+/g, '-')
        .slice(0, 64);
      return `elicitation:${name || 'mcp-client'}`;
    },
    async ask(message, ctx, timeoutMs, stop) {
      const related = ctx.signal === undefined ? undefined : requests.get(ctx.signal);
      const signal =
        stop === undefined || ctx.signal === undefined
          ? (stop ?? ctx.signal)
          : AbortSignal.any([ctx.signal, stop]);
      const answer = await server.server.elicitInput(
        { mode: 'form', message, requestedSchema: APPROVAL_FORM },
        {
          timeout: timeoutMs,
          ...(signal ? { signal } : {}),
          ...(related === undefined ? {} : { relatedRequestId: related }),
        },
      );
      return approvalAction(answer.action, answer.content);
    },
  };
}

/** The host's approval API on one instance directory, loaded at its first use. */
function approvalApi(instanceDir: string): ApprovalApi {
  const host = () => import('@harness/host');
  return {
    decidable: async (id) => (await host()).withApprovals(instanceDir, (a) => a.decidable(id)),
    decide: async (id, decision, by) =>
      (await host()).withApprovals(instanceDir, (a) => a.decide(id, decision, { by, via: 'elicitation' })),
  };
}

/**
 * Serves over stdio once `started` (the host's start, when serve waits for it) has settled; a start
 * that failed is returned, and nothing is served.
 */
async function serveStdio(
  serving: Serving,
  started: Promise<{ error: unknown } | undefined> | undefined,
): Promise<{ error: unknown } | undefined> {
  // Not the SDK's StdioServerTransport: past its buffer's bound it closed itself without a word and
  // serve fell silent for good (stdio-transport.ts).
  const { BoundedStdioServerTransport } = await import('../stdio-transport');
  const server = await newMcpServer(serving, 'stdio');
  const failed = await started;
  if (failed !== undefined) return failed;
  // The first message says which protocol the client speaks: `initialize` (or anything without a
  // protocol version in its `_meta`) is a 2025 client, served as ever; a request naming its
  // version in `_meta` (`server/discover`, say) is a 2026-07-28 client (serve-modern.ts).
  const { FirstMessage } = await import('../stdio-transport');
  const opening = new FirstMessage(new BoundedStdioServerTransport());
  const first = await opening.first();
  const { isModernMessage } = await import('./serve-modern');
  if (first !== undefined && isModernMessage(first)) {
    const { modernServerFactory } = await import('./serve-modern');
    const { serveStdio: serveModernStdio } = await import('@modelcontextprotocol/server/stdio');
    const factory = await modernServerFactory(
      await modernServing(serving),
      'stdio',
      () => serving.session.run,
    );
    serveModernStdio(factory, { legacy: 'reject', transport: opening.handoff() as never });
  } else {
    await server.connect(opening.handoff());
  }
  err(`harness: serving ${serving.session.tools.map((t) => t.name).join(', ')} over stdio`);
  if (serving.approvalsInstance !== undefined) err(ELICIT_NOTE);
  return undefined;
}

const NOTHING_SERVED = 'harness: nothing served; fix the cause and start serve again';
const KEEP_GOING_HINT =
  'or pass --keep-going to serve anyway (every call then answers host_unavailable with the reason)';

const ELICIT_NOTE =
  'harness: approvals: strict calls are put to the person in MCP clients that support elicitation; others wait for the console or harness approvals (--approvals queue: always wait)';

function authorized(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** A request body: its JSON value (undefined when empty), or the JSON-RPC error that refuses it. */
type Body = { ok: true; value: unknown } | { ok: false; status: 400 | 413; error: JsonRpcError };

/**
 * Reads a request body of at most {@link MAX_MESSAGE_BYTES}, as serve over stdio reads a line: a
 * longer one is refused by its declared length before anything is read, or as soon as the streamed
 * bytes pass the bound. The rest of a refused body is read and dropped, never kept: a connection
 * closed under a client still sending loses the answer to it (EPIPE) as often as not.
 */
function readBody(req: IncomingMessage): Promise<Body> {
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_MESSAGE_BYTES) {
    req.resume();
    return Promise.resolve({ ok: false, status: 413, error: messageTooLarge(declared) });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_MESSAGE_BYTES) {
        req.off('data', onData);
        chunks.length = 0;
        resolve({ ok: false, status: 413, error: messageTooLarge() });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('error', reject);
    req.once('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text === '') return resolve({ ok: true, value: undefined });
      try {
        resolve({ ok: true, value: JSON.parse(text) });
      } catch (error) {
        const message = `Parse error: the body is not JSON (${(error as Error).message})`;
        resolve({ ok: false, status: 400, error: { code: PARSE_ERROR, message } });
      }
    });
  });
}

/** Answers a request with a JSON-RPC error (code -32000 when given only a message) and no id. */
function reply(res: ServerResponse, status: number, error: string | JsonRpcError): void {
  const body = typeof error === 'string' ? { code: -32000, message: error } : error;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: body, id: null }));
}

/**
 * The HTTP listener's leg for 2026-07-28 requests (no session: each names its protocol version in
 * `_meta`): the v2 SDK's handler (serve-modern.ts), behind the same loopback guard, bearer token and
 * body bound as the 2025 sessions; all of them share one run, as one stdio client's calls do.
 */
async function modernLeg(serving: Serving) {
  const { modernServerFactory, modernHttp } = await import('./serve-modern');
  let run: ReturnType<Session['newRun']> | undefined;
  const factory = await modernServerFactory(await modernServing(serving), 'http', () => {
    run ??= serving.session.newRun('http-modern');
    return run;
  });
  return modernHttp(factory, MAX_MESSAGE_BYTES);
}

async function serveHttp(
  serving: Serving,
  listen: { host: string; port: number },
  { token, source }: HttpToken,
  limits: { maxSessions: number; idleMs: number },
): Promise<void> {
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const modern = await modernLeg(serving);
  let sessions = 0;
  let initializing = 0;
  const transports = new Map<string, InstanceType<typeof StreamableHTTPServerTransport>>();
  // When each session was last used; one idle past `limits.idleMs` is closed.
  const lastUsed = new Map<string, number>();
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, at] of lastUsed) {
        if (now - at > limits.idleMs) void transports.get(id)?.close();
      }
    },
    Math.min(30_000, Math.max(50, Math.floor(limits.idleMs / 4))),
  );
  sweep.unref();
  const guardLoopback = isLoopback(listen.host);
  const { createServer } = await import('node:http');
  const http = createServer(async (req, res) => {
    try {
      if (guardLoopback && !loopbackRequest(req)) {
        return reply(
          res,
          403,
          'this server answers only requests addressed to and sent from a loopback host',
        );
      }
      if (!authorized(req, token)) {
        res.setHeader('www-authenticate', 'Bearer');
        return reply(res, 401, 'missing or wrong bearer token');
      }
      if (req.method === 'GET' && req.url === '/metrics' && serving.telemetry?.serveMetrics !== undefined)
        return serving.telemetry.serveMetrics(req, res);
      if (!req.url?.startsWith('/mcp')) return reply(res, 404, 'the MCP endpoint is /mcp');
      const sessionId = req.headers['mcp-session-id'];
      const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
      let body: unknown;
      if (req.method === 'POST') {
        const read = await readBody(req);
        if (!read.ok) return reply(res, read.status, read.error);
        body = read.value;
      }
      if (existing) {
        lastUsed.set(sessionId as string, Date.now());
        return await existing.handleRequest(req, res, body);
      }
      if (sessionId === undefined && (await modern.handles(req, body)))
        return await modern.handle(req, res, body);
      if (req.method !== 'POST' || !isInitializeRequest(body))
        return reply(res, 400, 'no valid session: send initialize first');
      if (transports.size + initializing >= limits.maxSessions) {
        return reply(
          res,
          503,
          `${limits.maxSessions} MCP sessions are live, the most this server keeps; close one (DELETE /mcp with its mcp-session-id) or wait until an idle one expires`,
        );
      }
      initializing += 1;
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, transport);
          lastUsed.set(id, Date.now());
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) {
          transports.delete(transport.sessionId);
          lastUsed.delete(transport.sessionId);
        }
      };
      sessions += 1;
      try {
        const server = await newMcpServer(serving, `http-${sessions}`);
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
      } finally {
        initializing -= 1;
      }
    } catch (error) {
      if (!res.headersSent) reply(res, 400, (error as Error).message);
    }
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(listen.port, listen.host, () => resolve());
  });
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  // The URL line is what tests and scripts read to find an ephemeral port.
  err(
    `harness: serving ${serving.session.tools.map((t) => t.name).join(', ')} at http://${host}:${port}/mcp (bearer token required)`,
  );
  if (serving.approvalsInstance !== undefined) err(ELICIT_NOTE);
  err(
    source === 'HARNESS_HTTP_TOKEN'
      ? 'harness: bearer token from HARNESS_HTTP_TOKEN'
      : `harness: bearer token in ${source} (clients send "Authorization: Bearer <its first line>")`,
  );
  const close = () => {
    clearInterval(sweep);
    for (const t of transports.values()) void t.close();
    void modern.close();
    http.close();
  };
  process.once('SIGINT', close);
  process.once('SIGTERM', close);
}
