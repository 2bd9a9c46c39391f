// list_commands: what this run may call, read afresh from the host on every call (seed 000 "list_commands").
import { failedToDeliver, notConfigured, policyRefusal } from '../failed-to-deliver';
import type { HostClient } from '../host/types';
import { isRecord, isStringArray } from '../json';
import { LIMITS } from '../limits';
import { renderListing } from '../listing';
import type { RunState } from '../run';
import { catalogFailure, freshCatalog } from '../run-catalog';
import { cutId } from '../shape';
import type { HarnessTool, JsonSchema, ToolContext, ToolResult } from '../tool';
import { guardInput } from '../tool-input';

const inputSchema: JsonSchema = {
  type: 'object',
  properties: {
    detail: {
      type: 'array',
      items: { type: 'string' },
      description: `Up to ${LIMITS.maxDetail} command names whose full argument schema (inputSchema) to include.`,
    },
  },
};

/**
 * The `list_commands` tool. `client` is `undefined` for a tool kept without a configuration;
 * `listBound` is the byte bound past which entries lose their description.
 */
export function listCommandsTool(client: HostClient | undefined, listBound: number): HarnessTool {
  return {
    name: 'list_commands',
    description:
      'List the host commands this run may call, each as a one-line typed signature: name(params) -> {outputs}  [effect, target]. Pass detail (up to 16 names) to get their full argument schemas.',
    inputSchema,
    effect: 'read',
    annotations: {
      title: 'List host commands',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    execute: guardInput((input, ctx) => listCommands(input, ctx, client, listBound)),
  };
}

async function listCommands(
  input: unknown,
  ctx: ToolContext,
  client: HostClient | undefined,
  listBound: number,
): Promise<ToolResult> {
  const run = ctx.run;
  const refused = policyRefusal(run, 'list_commands', ctx, 'read');
  if (refused) return refused;
  if (!client) return notConfigured(run);
  const detail = readDetail(run, input);
  if (!Array.isArray(detail)) return detail;
  if (ctx.signal?.aborted)
    return failedToDeliver(run, 'cancelled', 'The turn was cancelled; nothing was read.');
  const catalog = await freshCatalog(run, client, ctx);
  if ('code' in catalog) return catalogFailure(run, catalog.code);
  return renderListing(run, catalog, detail, listBound);
}

/** The names the model asked to see in detail, or the `invalid_input` result for a bad input. */
function readDetail(run: RunState, input: unknown): string[] | ToolResult {
  const raw = input ?? {};
  if (!isRecord(raw))
    return failedToDeliver(run, 'invalid_input', 'list_commands takes an object: { detail?: string[] }.');
  const extra = Object.keys(raw).filter((k) => k !== 'detail');
  if (extra.length > 0)
    return failedToDeliver(
      run,
      'invalid_input',
      `list_commands takes only "detail" (found "${cutId(extra[0] ?? '')}").`,
    );
  const detail = raw.detail ?? [];
  if (!isStringArray(detail))
    return failedToDeliver(run, 'invalid_input', 'detail must be a list of command names.');
  if (detail.length > LIMITS.maxDetail) {
    return failedToDeliver(
      run,
      'invalid_input',
      `detail names at most ${LIMITS.maxDetail} commands (found ${detail.length}); ask in several calls.`,
    );
  }
  return detail;
}
