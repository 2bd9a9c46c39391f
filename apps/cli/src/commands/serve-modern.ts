// `harness serve` for MCP 2026-07-28 clients, beside the 2025 serving of serve.ts (which stays on
// @modelcontextprotocol/sdk 1.x). A 2026 client sends no `initialize`: each request carries its
// protocol version, client info and capabilities in `_meta`, and there is no session. This module
// answers such requests with the v2 SDK's server (`@modelcontextprotocol/server`): `server/discover`,
// `tools/list` in the catalog's fixed order, `tools/call` with the same results as the 2025 path
// (`mcpCallResult` of @harness/commands/mcp), progress while a call runs, the `_meta` trace context.
//
// Approvals: the 2026 protocol has no server-to-client request, so a call the host holds for a
// person is answered with an `input_required` result embedding the approval form (the same
// message and form as `elicitation/create` on the 2025 path). The client asks the person and calls
// again with the answer and the opaque `requestState`: a random id naming what this process kept of
// the held call (its tool, its arguments, the approval session, the held result), single use, so a
// client can neither forge nor replay it. An accept or a decline is recorded through the host's
// approval API, and the identical call is made again once: the host's answer to it is what the
// model reads. Cancel leaves the approval pending (the held result is answered), as on the 2025 path.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallOutcome, HarnessTool, RunState, ToolContext, ToolResult } from '@harness/commands';
import type { Server as ModernServer } from '@modelcontextprotocol/server';
import { version } from '../../package.json';
import { APPROVAL_FORM, type ApprovalApi, approvalAction, approvalMessage, heldApproval } from '../elicit';
import type { McpCall, Telemetry } from '../otel';

/** The protocol revision this module serves. */
export const MODERN_PROTOCOL = '2026-07-28';

const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

/** What the modern servers of one `harness serve` share with its 2025 ones. */
export interface ModernServing {
  /** The tools, each already wrapped as the 2025 path wraps them (heartbeat), but for elicitation. */
  tools: readonly HarnessTool[];
  /** The `tools/list` answer of the 2025 path: the same list, in the same order. */
  list: () => { tools: Record<string, unknown>[] };
  /** The call context of `run` (session.context). */
  context: (signal: AbortSignal | undefined, run: RunState) => ToolContext;
  /** The host's approval API; unset without `--approvals elicit` (a held call then waits in the queue). */
  approvals: ApprovalApi | undefined;
  telemetry: Telemetry | undefined;
}

// Held calls the person is being asked about, by the opaque id sent as `requestState`.
interface Held {
  tool: string;
  args: string;
  input: unknown;
  /** The approval session the held call was made in: the call made again must be in it too. */
  session: string;
  result: ToolResult;
  /** The held approvals: `index` -1 for a lone call, else the batch entry's index. */
  approvals: { index: number; id: string }[];
  expires: number;
}

const MAX_HELD = 1024;
// The longest a question stays answerable, whatever the approval's own lifetime (as on the 2025 path).
const MAX_WAIT_MS = 15 * 60 * 1000;

/** A JSON text of `value` with object keys sorted, so two equal argument objects compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/** The approvals a call's result (or a batch's results) is held for, with the entry of each. */
function heldIn(result: ToolResult, input: unknown): { index: number; id: string }[] {
  const lone = heldApproval(result);
  if (lone !== undefined) return [{ index: -1, id: lone }];
  const calls = (input as { calls?: unknown } | null)?.calls;
  if (result.status !== 'batch' || !Array.isArray(calls)) return [];
  return result.results.flatMap((r, index) => {
    const id = heldApproval(r);
    return id === undefined || calls[index] === undefined ? [] : [{ index, id }];
  });
}

/** True when a client's declared capabilities take a form elicitation (an empty object means form). */
function elicitsForms(capabilities: unknown): boolean {
  const elicitation = (capabilities as { elicitation?: Record<string, unknown> } | undefined)?.elicitation;
  if (elicitation === undefined || elicitation === null) return false;
  return elicitation.form !== undefined || Object.keys(elicitation).length === 0;
}

type Sdk = typeof import('@modelcontextprotocol/server');
type Adapter = typeof import('@harness/commands/mcp');
type CallContext = import('@modelcontextprotocol/server').ServerContext;

/** What the servers one factory builds share: the SDK, the tools, the held calls. */
interface Shared {
  sdk: Sdk;
  mcp: Adapter;
  serving: ModernServing;
  transport: 'stdio' | 'http';
  run: () => RunState;
  byName: Map<string, HarnessTool>;
  held: Map<string, Held>;
}

/**
 * The factory of modern servers for one transport: each call builds a v2 SDK `Server` answering
 * `tools/list` and `tools/call` for `run`. The held calls are shared by every server it builds.
 */
export async function modernServerFactory(
  serving: ModernServing,
  transport: 'stdio' | 'http',
  run: () => RunState,
): Promise<() => ModernServer> {
  const shared: Shared = {
    sdk: await import('@modelcontextprotocol/server'),
    mcp: await import('@harness/commands/mcp'),
    serving,
    transport,
    run,
    byName: new Map(serving.tools.map((t) => [t.name, t])),
    held: new Map(),
  };
  return () => {
    const server = new shared.sdk.Server(
      { name: 'harness', version },
      { capabilities: { tools: {} }, inputRequired: { legacyShim: false } },
    );
    server.setRequestHandler('tools/list', () => serving.list() as never);
    server.setRequestHandler(
      'tools/call',
      async (request, ctx) => (await callTool(shared, server, request.params, ctx)) as never,
    );
    return server;
  };
}

/** One `tools/call`: a first call, or one made again with the person's answers. */
async function callTool(
  shared: Shared,
  server: ModernServer,
  params: { name: string; arguments?: Record<string, unknown> | undefined },
  ctx: CallContext,
): Promise<unknown> {
  const { mcp, serving } = shared;
  const name = params.name;
  const found = shared.byName.get(name);
  if (found === undefined)
    return { content: [{ type: 'text', text: `Tool ${name} not found` }], isError: true };
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const meta = mcp.mcpTextMeta(ctx.mcpReq._meta as Record<string, unknown> | undefined);
  const token = ctx.mcpReq._meta?.progressToken;
  const signal = ctx.mcpReq.signal;
  let tool = found;
  if (serving.telemetry !== undefined) {
    const call: McpCall = {
      requestId: ctx.mcpReq.id,
      sessionId: undefined,
      transport: shared.transport,
      traceContext: meta?.traceparent === undefined ? undefined : meta,
    };
    tool = serving.telemetry.instrument(tool, () => call);
  }
  const execute = (input: unknown, session: string): Promise<ToolResult> =>
    tool.execute(input, {
      stopStarted: true,
      ...serving.context(signal, shared.run()),
      session,
      signal,
      onProgress:
        token === undefined
          ? undefined
          : (p) => {
              void ctx.mcpReq.notify({
                method: 'notifications/progress',
                params: mcp.mcpProgressParams(token, p),
              });
            },
    });
  const answer = (result: ToolResult) =>
    server.projectCallToolResult(mcp.mcpCallResult(name, result) as never, mcp.toolOutputSchema(name));
  const args = params.arguments ?? {};
  const state = ctx.mcpReq.requestState<string>();
  if (typeof state === 'string') return answer(await resume(shared, state, name, args, ctx, execute));
  const session = randomUUID();
  const result = await execute(args, session);
  if (serving.approvals === undefined || !elicitsForms(envelope[CLIENT_CAPABILITIES])) return answer(result);
  return (
    (await askAbout(shared, { tool: name, args: canonical(args), input: args, session, result })) ??
    answer(result)
  );
}

/**
 * The `input_required` result that puts the approvals a call was held for to the person, keeping
 * the held call under a random id (the `requestState`); undefined when none may be decided now.
 */
async function askAbout(
  { sdk, serving, held }: Shared,
  call: Omit<Held, 'approvals' | 'expires'>,
): Promise<unknown> {
  const inputRequests: Record<string, ReturnType<Sdk['inputRequired']['elicit']>> = {};
  let msLeft = MAX_WAIT_MS;
  const asked: Held['approvals'] = [];
  for (const a of heldIn(call.result, call.input)) {
    const open = await serving.approvals?.decidable(a.id);
    if (open === undefined || !open.ok) continue;
    msLeft = Math.min(msLeft, open.msLeft);
    asked.push(a);
    inputRequests[`approve-${a.id}`] = sdk.inputRequired.elicit({
      mode: 'form',
      message: approvalMessage(open.record),
      requestedSchema: APPROVAL_FORM,
    });
  }
  if (asked.length === 0) return undefined;
  const now = Date.now();
  for (const [id, h] of held) if (h.expires <= now) held.delete(id);
  while (held.size >= MAX_HELD) held.delete(held.keys().next().value as string);
  const id = randomUUID();
  held.set(id, { ...call, approvals: asked, expires: now + msLeft });
  return sdk.inputRequired({ inputRequests, requestState: id });
}

/**
 * A held call made again with the person's answers: each accept or decline is recorded, and each
 * decided call made again identically once (in its approval session); cancel keeps the held result.
 */
async function resume(
  { sdk, serving, held }: Shared,
  state: string,
  name: string,
  args: Record<string, unknown>,
  ctx: CallContext,
  execute: (input: unknown, session: string) => Promise<ToolResult>,
): Promise<ToolResult> {
  const kept = held.get(state);
  held.delete(state);
  if (kept === undefined || kept.expires <= Date.now())
    throw new sdk.ProtocolError(
      sdk.ProtocolErrorCode.InvalidParams,
      'the approval this call was held for is no longer asked about here: make the call again',
    );
  if (kept.tool !== name || kept.args !== canonical(args))
    throw new sdk.ProtocolError(
      sdk.ProtocolErrorCode.InvalidParams,
      'a call made again with an answer must be the identical call',
    );
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const clientName = (envelope[CLIENT_INFO] as { name?: string } | undefined)?.name ?? 'mcp-client';
  const by = `elicitation:${clientName.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 64) || 'mcp-client'}`;
  const decided = new Set<string>();
  for (const { id } of kept.approvals) {
    const view = sdk.inputResponse(ctx.mcpReq.inputResponses, `approve-${id}`);
    if (view.kind !== 'elicit') continue;
    const action = approvalAction(view.action, view.content);
    if (action === 'cancel') continue;
    await serving.approvals
      ?.decide(id, action === 'accept' ? 'approved' : 'denied', by)
      .catch(() => undefined);
    decided.add(id);
  }
  if (kept.result.status !== 'batch')
    return decided.size > 0 ? execute(kept.input, kept.session) : kept.result;
  const calls = (kept.input as { calls: unknown[] }).calls;
  const settled: ToolResult[] = [...kept.result.results];
  for (const { index, id } of kept.approvals) {
    if (decided.has(id)) settled[index] = await execute(calls[index], kept.session);
  }
  return { ...kept.result, results: settled as CallOutcome[] };
}

/** True when a message opens a 2026-07-28 exchange: it names its protocol version in `_meta`. */
export function isModernMessage(message: unknown): boolean {
  const meta = (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
  return typeof meta?.[PROTOCOL_VERSION] === 'string';
}

/** The headers of a Node request as web `Headers`, but those that describe the connection. */
function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || ['host', 'connection', 'content-length', 'transfer-encoding'].includes(name))
      continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/**
 * The modern leg of serve's HTTP listener: `handles` says whether a request (with its body already
 * read) is a 2026-07-28 one, `handle` answers it through the v2 SDK's handler (2025 requests are
 * refused there: serve.ts routes them to its sessions).
 */
export async function modernHttp(
  factory: () => ModernServer,
  maxBodyBytes: number,
): Promise<{
  handles: (req: IncomingMessage, body: unknown) => Promise<boolean>;
  handle: (req: IncomingMessage, res: ServerResponse, body: unknown) => Promise<void>;
  close: () => Promise<void>;
}> {
  const sdk = await import('@modelcontextprotocol/server');
  const handler = sdk.createMcpHandler(factory, { legacy: 'reject', maxRequestBodySize: maxBodyBytes });
  const webRequest = (req: IncomingMessage, signal?: AbortSignal): Request =>
    new Request(new URL(req.url ?? '/mcp', 'http://localhost'), {
      method: req.method ?? 'POST',
      headers: webHeaders(req),
      ...(signal ? { signal } : {}),
    });
  return {
    handles: async (req, body) =>
      req.method === 'POST' &&
      req.headers['mcp-session-id'] === undefined &&
      !(await sdk.isLegacyRequest(webRequest(req), body ?? null)),
    async handle(req, res, body) {
      const gone = new AbortController();
      res.once('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      const response = await handler.fetch(webRequest(req, gone.signal), { parsedBody: body });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body !== null) {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          if (res.destroyed) break;
          res.write(chunk);
        }
      }
      res.end();
    },
    close: () => handler.close(),
  };
}
