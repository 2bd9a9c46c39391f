// list_commands: what this run may call, read afresh from the host on every call (seed 000 "list_commands").
import { z } from 'zod';
import { defineTool } from '../define-tool';
import { failedToDeliver, notConfigured, policyRefusal } from '../failed-to-deliver';
import type { HostClient } from '../host/types';
import { LIMITS } from '../limits';
import { listNotice, renderListing } from '../listing';
import type { ListCommandsOutcome } from '../outcome';
import { DeliveryCode } from '../outcome-codes';
import { catalogFailure, freshCatalog } from '../run-catalog';
import { cutId } from '../shape';
import type { HarnessTool, ToolContext } from '../tool';
import { readInput } from '../tool-input';

const DETAIL = 'detail must be a list of command names.';

/** The `list_commands` input: the commands to show in detail. */
export const ListInput = z.strictObject(
  {
    // null reads as no detail, as it always has.
    detail: z
      .array(z.string({ error: DETAIL }), { error: DETAIL })
      // A refinement, not .max(): every name is checked before the count, as it always was.
      .check((ctx) => {
        if (ctx.value.length > LIMITS.maxDetail)
          ctx.issues.push({
            code: 'custom',
            input: ctx.value,
            message: `detail names at most ${LIMITS.maxDetail} commands (found ${ctx.value.length}); ask in several calls.`,
          });
      })
      .nullish()
      .describe(
        `Up to ${LIMITS.maxDetail} command names whose full argument schema (inputSchema) to include.`,
      ),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `list_commands takes only "detail" (found "${cutId(issue.keys[0] ?? '')}").`
        : 'list_commands takes an object: { detail?: string[] }.',
  },
);

/** `list_commands`: the names to show in detail in, the listing out. */
export type ListCommandsTool = HarnessTool<z.input<typeof ListInput>, ListCommandsOutcome>;

/**
 * The `list_commands` tool. `client` is `undefined` for a tool kept without a configuration;
 * `listBound` is the byte bound past which entries lose their description; `notices` gives the
 * sentences the notice adds at each listing.
 */
export function listCommandsTool(
  client: HostClient | undefined,
  listBound: number,
  notices: () => readonly string[] = () => [],
): ListCommandsTool {
  return defineTool({
    name: 'list_commands',
    description:
      'List the host commands this run may call, each as a one-line typed signature: name(params) -> {outputs}  [effect, target]. Pass detail (up to 16 names) to get their full argument schemas.',
    input: ListInput,
    effect: 'read',
    annotations: {
      title: 'List host commands',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    execute: (input, ctx) => listCommands(input, ctx, client, listBound, notices),
  });
}

async function listCommands(
  input: unknown,
  ctx: ToolContext,
  client: HostClient | undefined,
  listBound: number,
  notices: () => readonly string[],
): Promise<ListCommandsOutcome> {
  const run = ctx.run;
  const refused = policyRefusal(run, 'list_commands', ctx, 'read');
  if (refused) return refused;
  if (!client) return notConfigured(run);
  // No input at all reads as an empty one, as it always has.
  const read = readInput(ListInput, input ?? {});
  if (!read.ok) return failedToDeliver(run, DeliveryCode.invalid_input, read.issue.message);
  if (ctx.signal?.aborted)
    return failedToDeliver(run, DeliveryCode.cancelled, 'The turn was cancelled; nothing was read.');
  const listed = await freshCatalog(run, client, ctx);
  if (!listed.ok) return catalogFailure(run, listed.code);
  return renderListing(run, listed.catalog, read.value.detail ?? [], listBound, listNotice(notices()));
}
