// `harness serve`: the host command tools (and Loom authoring tools) as an MCP server, over stdio by
// default or over streamable HTTP. Over HTTP each MCP session is its own run.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { HarnessTool, ToolProgress } from '@harness/commands';
import { version } from '../../package.json';
import { parse } from '../args';
import { CliError } from '../errors';
import { sessionFlags, sessionFlagsHelp, sessionOptions } from '../flags';
import { err, out } from '../output';
import { openSession, type Session } from '../session';

const help = `Usage: harness serve [--workspace <file> --agent <id>] [--http <host:port>] [configuration]

Serves list_commands, run_command and run_read_command (and loom_compose, loom_inspect,
loom_authoring_context) to an MCP client. Over stdio by default: point your MCP client's
"command" at \`harness serve\`. With no host configuration, serve opens the embedded default:
an instance directory with the example workspace and a broker in this process (it prints where).

Your own commands: harness serve --workspace ./my-workspace.yaml --instance ~/.local/share/harness/mine --agent me

${sessionFlagsHelp}

Transport:
  --http <host:port>   serve streamable HTTP at http://host:port/mcp instead of stdio.
                       Loopback by default (127.0.0.1); any other address requires a token.
  --token <secret>     require "Authorization: Bearer <secret>" (env HARNESS_HTTP_TOKEN)
  --heartbeat <ms>     while a single call runs, send the client a progress notification this
                       often when it asked for progress (default 1000; 0 turns it off). A batch
                       reports progress as its calls settle.`;

/** Runs `harness serve`. */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parse(
    argv,
    { ...sessionFlags, http: { type: 'string' }, token: { type: 'string' }, heartbeat: { type: 'string' } },
    false,
  );
  if (values.help) {
    out(help);
    return 0;
  }
  const token = values.token ?? (process.env.HARNESS_HTTP_TOKEN || undefined);
  const listen = values.http === undefined ? undefined : parseListen(values.http, token);
  const heartbeatMs = values.heartbeat === undefined ? 1000 : Number(values.heartbeat);
  if (!Number.isSafeInteger(heartbeatMs) || heartbeatMs < 0)
    throw new CliError(
      'usage',
      `--heartbeat must be a whole number of milliseconds, found '${values.heartbeat}'`,
    );
  const session = await openSession({ ...sessionOptions(values), log: err });
  if (session.tools.length === 0) {
    await session.close();
    throw new CliError(
      'config',
      'nothing to serve: no tool is configured; give --loom-commands-config and/or --loom-authoring-config (or drop --no-embedded)',
    );
  }
  if (heartbeatMs > 0) session.tools = session.tools.map((t) => withHeartbeat(t, heartbeatMs));
  const stop = async () => {
    await session.close();
  };
  if (listen === undefined) {
    await serveStdio(session);
  } else {
    await serveHttp(session, listen, token);
  }
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

// How long calls in flight may still finish after the stdio client went away.
const CLIENT_GONE_GRACE_MS = 1_000;

/**
 * Wraps a tool so a single call that runs longer than `everyMs` sends progress notifications while
 * it runs (the MCP adapter of @harness/commands reports progress only as calls settle). Every
 * report, the tool's own included, is renumbered to keep increasing, as MCP requires; a batch keeps
 * the tool's own reports.
 */
export function withHeartbeat(tool: HarnessTool, everyMs: number): HarnessTool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    effect: tool.effect,
    annotations: tool.annotations,
    async execute(input, ctx) {
      const report = ctx.onProgress;
      if (report === undefined) return tool.execute(input, ctx);
      const batch = typeof input === 'object' && input !== null && 'calls' in input;
      let last = 0;
      const send = (p: ToolProgress) => {
        const progress = Math.max(p.progress, last + 1);
        last = progress;
        report({
          ...p,
          progress,
          ...(p.total !== undefined ? { total: Math.max(p.total, progress) } : {}),
        });
      };
      const started = Date.now();
      const timer = batch
        ? undefined
        : setInterval(() => {
            const seconds = ((Date.now() - started) / 1000).toFixed(1);
            send({ progress: last + 1, message: `${tool.name} still running (${seconds}s)` });
          }, everyMs);
      try {
        return await tool.execute(input, { ...ctx, onProgress: send });
      } finally {
        if (timer) clearInterval(timer);
      }
    },
  };
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

function parseListen(value: string, token: string | undefined): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value) ?? /^()()(\d{1,5})$/.exec(value);
  if (!match) throw new CliError('usage', `--http must be host:port or port, found '${value}'`);
  const host = match[1] || match[2] || '127.0.0.1';
  const port = Number(match[3]);
  if (port > 65535) throw new CliError('usage', `--http port must be 0-65535, found ${port}`);
  if (!isLoopback(host) && token === undefined) {
    throw new CliError(
      'usage',
      `--http ${host} is not a loopback address: set --token or HARNESS_HTTP_TOKEN so only clients with the token can call tools`,
    );
  }
  return { host, port };
}

// The tools/list answer, built once per session: the SDK would convert every tool's input schema
// from zod back to JSON Schema on each request, and the tools are declared in JSON Schema already.
const toolLists = new WeakMap<Session, { tools: Record<string, unknown>[] }>();

function toolList(session: Session): { tools: Record<string, unknown>[] } {
  let list = toolLists.get(session);
  if (list === undefined) {
    list = {
      tools: session.tools.map((t) => ({
        name: t.name,
        title: t.annotations.title,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: { ...t.annotations },
      })),
    };
    toolLists.set(session, list);
  }
  return list;
}

async function newMcpServer(session: Session, runId: string) {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { ListToolsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const { registerMcpTools } = await import('@harness/commands/mcp');
  const server = new McpServer({ name: 'harness', version }, { capabilities: { tools: {} } });
  const run = runId === 'stdio' ? session.run : session.newRun(runId);
  registerMcpTools(server, session.tools, ({ signal }) => session.context(signal, run));
  // Only this session's tools are on this server, and they never change while it serves.
  server.server.setRequestHandler(ListToolsRequestSchema, () => toolList(session) as never);
  return server;
}

async function serveStdio(session: Session): Promise<void> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const server = await newMcpServer(session, 'stdio');
  await server.connect(new StdioServerTransport());
  err(`harness: serving ${session.tools.map((t) => t.name).join(', ')} over stdio`);
}

function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (token === undefined) return true;
  const header = req.headers.authorization ?? '';
  const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 4 * 1024 * 1024) throw new Error('request body larger than 4 MiB');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function serveHttp(
  session: Session,
  listen: { host: string; port: number },
  token: string | undefined,
): Promise<void> {
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  let sessions = 0;
  const transports = new Map<string, InstanceType<typeof StreamableHTTPServerTransport>>();
  const guardLoopback = isLoopback(listen.host);
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
      if (!req.url?.startsWith('/mcp')) return reply(res, 404, 'the MCP endpoint is /mcp');
      const sessionId = req.headers['mcp-session-id'];
      const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      if (existing) return await existing.handleRequest(req, res, body);
      if (req.method !== 'POST' || !isInitializeRequest(body))
        return reply(res, 400, 'no valid session: send initialize first');
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, transport);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
      };
      sessions += 1;
      const server = await newMcpServer(session, `http-${sessions}`);
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
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
    `harness: serving ${session.tools.map((t) => t.name).join(', ')} at http://${host}:${port}/mcp${token ? ' (bearer token required)' : ''}`,
  );
  const close = () => {
    for (const t of transports.values()) void t.close();
    http.close();
  };
  process.once('SIGINT', close);
  process.once('SIGTERM', close);
}
