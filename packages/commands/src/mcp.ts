// The MCP adapter (`@harness/commands/mcp`). The SDK is an optional peer dependency: only this
// entry imports it, so embedders without MCP never load it.
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { callToolReply, REPLY_TOOLS } from './call-reply';
import { outcomeSchemaOf, type ToolOutcome } from './outcome';
import { structuredSchemaOf, toolOutputSchema } from './output-schema';
import { isErrorResult, resultText } from './result-text';
import type { HarnessTool, ToolContext, ToolProgress } from './tool';

export { toolOutputSchema };

/** What the adapter needs per call besides the MCP request: the run, slot and job id. */
export type McpContextFactory = (extra: {
  signal: AbortSignal;
  sessionId?: string | undefined;
  /** The MCP request of the call, for requests related to it (an elicitation over HTTP, say). */
  requestId: string | number;
  /**
   * The request's `_meta` members that are text (W3C trace context: `traceparent`, `tracestate`),
   * so a server can continue the client's trace.
   */
  meta?: Readonly<Record<string, string>> | undefined;
}) => Omit<ToolContext, 'signal' | 'onProgress'>;

/** The members of a request's `_meta` whose values are text; none when it has none. */
function textMeta(meta: Record<string, unknown> | undefined): Record<string, string> | undefined {
  if (meta === undefined) return undefined;
  const text = Object.entries(meta).filter((e): e is [string, string] => typeof e[1] === 'string');
  return text.length === 0 ? undefined : Object.fromEntries(text);
}

/** The `_meta` key under which a progress notification carries a running call's figures. */
export const PROGRESS_META_KEY = 'harness.dev/progress';

/**
 * The `_meta` key of a tool result that holds its whole typed outcome (`ToolOutcome`), for programs:
 * a call tool's `structuredContent` is the lean reply a model reads (call-reply.ts), which clients
 * forward to their model, and `_meta` they keep to themselves.
 */
export const OUTCOME_META_KEY = 'harness.dev/outcome';

/**
 * The whole typed outcome of a tool result as a client received it: a call tool's under `_meta`
 * ({@link OUTCOME_META_KEY}), any other tool's as its `structuredContent`; undefined when it has
 * neither. Parse it with the tool's outcome schema (`TOOL_OUTCOMES`) before reading it.
 */
export function resultOutcome(result: {
  structuredContent?: unknown;
  _meta?: Record<string, unknown> | undefined;
}): unknown {
  return result._meta?.[OUTCOME_META_KEY] ?? result.structuredContent;
}

/**
 * The params of one progress notification: MCP's `progress`, `total` and `message`, and a running
 * call's time in flight and output so far as numbers under `_meta["harness.dev/progress"]` (MCP
 * clients keep `_meta`; they drop params the specification does not name), with the approval it
 * waits for (`{ id, approve, waitsUntil }`) while it waits for a person's decision.
 */
function progressParams(p: ToolProgress): Omit<ToolProgress, 'elapsedMs' | 'outputBytes' | 'approval'> & {
  _meta?: Record<string, unknown>;
} {
  const { elapsedMs, outputBytes, approval, ...mcp } = p;
  if (elapsedMs === undefined && outputBytes === undefined && approval === undefined) return mcp;
  return {
    ...mcp,
    _meta: {
      [PROGRESS_META_KEY]: {
        ...(elapsedMs === undefined ? {} : { elapsedMs }),
        ...(outputBytes === undefined ? {} : { outputBytes }),
        ...(approval === undefined ? {} : { approval }),
      },
    },
  };
}

// One per schema, built at the first registration that needs it.
const envelopes = new Map<z.ZodType, z.ZodObject>();

/**
 * The tool's `structuredContent` schema ({@link structuredSchemaOf}) in the form the SDK takes an
 * output schema: a zod object, whose JSON Schema it lists and with which it checks each success's
 * `structuredContent`. The schema is a union, so the SDK gets an envelope: any object, refined by
 * the union, carrying the union's JSON Schema
 * ({@link toolOutputSchema}) as metadata, which zod's generator merges into the object's own.
 */
function sdkOutputSchema(tool: string): z.ZodObject {
  const schema = structuredSchemaOf(tool);
  let envelope = envelopes.get(schema);
  if (envelope === undefined) {
    const { type: _object, ...union } = toolOutputSchema(tool);
    envelope = z
      .looseObject({})
      .superRefine((value, ctx) => {
        const read = schema.safeParse(value);
        if (!read.success) ctx.addIssue({ code: 'custom', message: z.prettifyError(read.error) });
      })
      .meta(union);
    envelopes.set(schema, envelope);
  }
  return envelope;
}

// One per tool's input schema, built at the first registration that needs it.
const inputEnvelopes = new Map<z.ZodType, z.ZodObject>();

/**
 * The tool's input schema in the form the SDK takes one: a zod object, whose JSON Schema it lists
 * and with which it checks each call's arguments before the tool sees them. The tool reads its
 * input itself, once (answering a problem as data the model can act on: `invalid_input`,
 * `batch_too_large`), so the SDK gets an envelope that takes any object, carrying the tool's
 * {@link HarnessTool.inputSchema} as metadata, which zod's generator merges into the object's own.
 */
function sdkInputSchema(tool: HarnessTool): z.ZodObject {
  let envelope = inputEnvelopes.get(tool.input);
  if (envelope === undefined) {
    envelope = z.looseObject({}).meta(tool.inputSchema);
    inputEnvelopes.set(tool.input, envelope);
  }
  return envelope;
}

/**
 * The params of the `notifications/progress` that reports `p` for the request whose progress token
 * is `token` (what {@link registerMcpTools} sends; for a server written on another SDK version).
 */
export function mcpProgressParams(
  token: string | number,
  p: ToolProgress,
): { progressToken: string | number } & ReturnType<typeof progressParams> {
  return { progressToken: token, ...progressParams(p) };
}

/**
 * The `tools/call` result {@link registerMcpTools} answers for a tool's outcome: the text a model
 * reads, `structuredContent` (a call tool's lean reply, with the whole outcome under `_meta`), and
 * `isError` for every result that is not a success. Exported for servers written on another SDK
 * version (the 2026-07-28 protocol's), so both answer the same bytes.
 */
export function mcpCallResult(
  tool: string,
  result: ToolOutcome,
): {
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
  _meta?: Record<string, unknown>;
} {
  // An outcome outside its tool's schema is handed on as it is, for the SDK to refuse.
  const reply =
    REPLY_TOOLS.has(tool) && outcomeSchemaOf(tool).safeParse(result).success
      ? callToolReply(result)
      : undefined;
  return {
    content: [{ type: 'text' as const, text: resultText(result) }],
    structuredContent: (reply ?? result) as unknown as Record<string, unknown>,
    isError: isErrorResult(result),
    ...(reply === undefined ? {} : { _meta: { [OUTCOME_META_KEY]: result } }),
  };
}

/** The members of a request's `_meta` whose values are text (trace context), for another SDK's server. */
export function mcpTextMeta(meta: Record<string, unknown> | undefined): Record<string, string> | undefined {
  return textMeta(meta);
}

/**
 * Registers harness tools on an MCP server: each tool's input schema (generated from its zod
 * schema, which the tool alone reads its input with), each tool's `structuredContent` as
 * its `outputSchema` (generated from its zod schema, {@link toolOutputSchema}), annotations that are
 * true for each tool, progress notifications when the client asked for them, and the request's
 * abort signal as the cancel signal. A result carries the text a model reads (the command's output
 * and one status line, {@link resultText}) and, as `structuredContent`, a call tool's lean reply
 * (call-reply.ts) with the whole outcome under `_meta` ({@link OUTCOME_META_KEY}), or any other
 * tool's whole outcome. Every result that is not a success is marked `isError`.
 */
export function registerMcpTools(
  server: McpServer,
  tools: readonly HarnessTool[],
  context: McpContextFactory,
): RegisteredTool[] {
  return tools.map((tool) =>
    server.registerTool(
      tool.name,
      {
        title: tool.annotations.title,
        description: tool.description,
        inputSchema: sdkInputSchema(tool),
        outputSchema: sdkOutputSchema(tool.name),
        annotations: { ...tool.annotations },
      },
      async (args: unknown, extra) => {
        const token = extra._meta?.progressToken;
        const base = context({
          signal: extra.signal,
          sessionId: extra.sessionId,
          requestId: extra.requestId,
          meta: textMeta(extra._meta),
        });
        const result: ToolOutcome = await tool.execute(args, {
          // An MCP cancellation names this one call: it stops calls already sent too.
          stopStarted: true,
          ...base,
          signal: extra.signal,
          onProgress:
            token === undefined
              ? undefined
              : (p) => {
                  void extra.sendNotification({
                    method: 'notifications/progress',
                    params: mcpProgressParams(token, p),
                  });
                },
        });
        return mcpCallResult(tool.name, result);
      },
    ),
  );
}
