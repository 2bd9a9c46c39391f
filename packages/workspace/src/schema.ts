// The workspace file, defined once: its settings, the lists of entries it declares (command packs,
// in the pack language of @harness/packs) and its agents. Every other view of it (the JSON Schema
// shipped for editors, the TypeScript input type) is derived from these definitions.
import { ID_PATTERN } from '@harness/config';
import { id as idOf, strict } from '@harness/config/zod';
import {
  approvalWaitSchema,
  commandPacksSchema,
  durationSchema,
  packSchema,
  scopeSchema,
  standardEntrySchema,
} from '@harness/packs/loader';
import { z } from 'zod';
import { notifySchema } from './notify';
import { serversSchema } from './servers';

const agent = strict({
  id: idOf('agent', ID_PATTERN),
  scopes: z.array(scopeSchema).optional(),
  grants: z
    .array(z.string({ error: 'expected a grant (a string)' }))
    .optional()
    .meta({
      description:
        'pack:<id> (its read commands), <pack>.<command>, server:<id> (every tool of an MCP server) or <server>.<tool>.',
    }),
  builtins: z.boolean({ error: 'expected builtins: true or false' }).optional().meta({
    description:
      "false: the host's loom.* built-ins (composing and inspecting a shared Loom document) are not offered to this agent, a coding agent's catalog being its packs alone; default true.",
  }),
});

/** The workspace's settings: each applies to every entry the workspace declares. */
const settings = {
  $schema: z.string().optional(),
  version: z.literal(1, { error: 'expected version 1' }).optional(),
  sandbox_mode: z
    .enum(['required', 'preferred', 'off'], { error: 'expected sandbox_mode required, preferred or off' })
    .optional()
    .meta({
      description:
        'required: a pack that needs a sandbox is unavailable where none works; preferred (default): run unconfined with a warning; off: never confine.',
    }),
  approval_wait: approvalWaitSchema.optional().meta({
    description:
      "How long a call held for approval waits for a person's decision (e.g. 2m) before it answers approval_required; a pack's own approval_wait wins. Absent or 0: it answers at once.",
  }),
  approval_timeout: durationSchema.optional().meta({
    description:
      "How long an approval request stays open for a person before it expires and the call is refused (approval_expired): nobody answering is a no. A pack's own approval_timeout wins. Default 15m.",
  }),
  notify: notifySchema.optional(),
};

/**
 * The lists of entries a workspace declares, each in its own language, as the loader checks them:
 * `command_packs` (each `standard:` entry already merged into its pack) and `mcp_servers`. Another kind of entry is
 * one more key here, and one more in {@link entriesAsWritten}.
 */
const entries = {
  command_packs: commandPacksSchema.optional(),
  mcp_servers: serversSchema.optional(),
};

/** The same lists as a person writes them, for editors: a pack entry is a pack or a `standard:` entry. */
const entriesAsWritten = {
  command_packs: z.array(z.union([packSchema, standardEntrySchema])).optional(),
  mcp_servers: serversSchema.optional(),
};

/** Who may call what: each agent's scopes and grants over the entries above. */
const grantees = {
  agents: z.array(agent, { error: 'expected a list of agents' }).optional(),
};

const META = {
  title: 'harness-commands workspace',
  description: 'Command packs, MCP servers and the agents granted them.',
};

/**
 * The zod schema of the workspace file (YAML or JSON) once every `standard:` entry is replaced by
 * its bundled pack with the entry's keys over it: what the loader checks.
 */
export const workspaceSchema = strict({ ...settings, ...entries, ...grantees }).meta(META);

/** The workspace file as the loader checks it: each `standard:` entry already merged into a pack. */
export type WorkspaceFile = z.input<typeof workspaceSchema>;

// The file as a person writes it, for editors.
const workspaceFileSchema = strict({ ...settings, ...entriesAsWritten, ...grantees }).meta(META);

/** The JSON Schema of the workspace file, for editors (shipped as `schema/workspace.schema.json`). */
export function workspaceJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(workspaceFileSchema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
}
