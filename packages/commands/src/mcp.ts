// The MCP adapter (`@harness/commands/mcp`). The SDK is an optional peer dependency: only this
// entry imports it, so embedders without MCP never load it.
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { isErrorResult, resultText } from './result-text';
import type { HarnessTool, ToolContext, ToolProgress, ToolResult } from './tool';

/** What the adapter needs per call besides the MCP request: the run, slot and job id. */
export type McpContextFactory = (extra: {
  signal: AbortSignal;
  sessionId?: string | undefined;
  /** The MCP request of the call, for requests related to it (an elicitation over HTTP, say). */
  requestId: string | number;
}) => Omit<ToolContext, 'signal' | 'onProgress'>;

/** The `_meta` key under which a progress notification carries a running call's figures. */
export const PROGRESS_META_KEY = 'harness.dev/progress';

/**
 * The params of one progress notification: MCP's `progress`, `total` and `message`, and a running
 * call's time in flight and output so far as numbers under `_meta["harness.dev/progress"]` (MCP
 * clients keep `_meta`; they drop params the specification does not name).
 */
function progressParams(p: ToolProgress): Omit<ToolProgress, 'elapsedMs' | 'outputBytes'> & {
  _meta?: Record<string, unknown>;
} {
  const { elapsedMs, outputBytes, ...mcp } = p;
  if (elapsedMs === undefined && outputBytes === undefined) return mcp;
  return {
    ...mcp,
    _meta: {
      [PROGRESS_META_KEY]: {
        ...(elapsedMs === undefined ? {} : { elapsedMs }),
        ...(outputBytes === undefined ? {} : { outputBytes }),
      },
    },
  };
}

/**
 * Registers harness tools on an MCP server: JSON Schema inputs, annotations that are true for each
 * tool, the whole result as `structuredContent` beside the text a model reads (the command's output
 * and one status line, {@link resultText}), progress notifications when the client asked for them,
 * and the request's abort signal as the cancel signal. Every result that is not a success is marked
 * `isError`.
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
        // Lenient by design: bounds are enforced by the tool, which answers with data the model
        // can act on (batch_too_large, invalid_input) rather than a protocol error.
        inputSchema: z.fromJSONSchema(tool.inputSchema) as z.ZodObject,
        annotations: { ...tool.annotations },
      },
      async (args: unknown, extra) => {
        const token = extra._meta?.progressToken;
        const base = context({
          signal: extra.signal,
          sessionId: extra.sessionId,
          requestId: extra.requestId,
        });
        const result: ToolResult = await tool.execute(args, {
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
                    params: { progressToken: token, ...progressParams(p) },
                  });
                },
        });
        return {
          content: [{ type: 'text' as const, text: resultText(result) }],
          structuredContent: result,
          isError: isErrorResult(result),
        };
      },
    ),
  );
}
