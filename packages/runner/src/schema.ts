// The runner file, defined once. The JSON Schema shipped for editors (schema/runner.schema.json) and
// the TypeScript input type are derived from these definitions; the per-kind rules (the validation
// matrix of docs/runner.md) are checked after the schema, in load.ts, so each gets its own message.
import {
  ENV_NAME_PATTERN,
  parseByteSize,
  parseDuration,
  RETENTION_WINDOW,
  SHORT_ID_PATTERN,
} from '@harness/config';
import { id, strict } from '@harness/config/zod';
import { z } from 'zod';

/** Kinds of harness: `command` runs any argv; five agent adapters; `generic` is the `sh -c` escape hatch. */
export const HARNESS_KINDS = ['command', 'claude-code', 'codex', 'crush', 'pi', 'omp', 'generic'] as const;
/** One of {@link HARNESS_KINDS}. */
export type HarnessKind = (typeof HARNESS_KINDS)[number];
/** The kinds that are agent CLI adapters (the ones a prompt is for). */
export const AGENT_KINDS = ['claude-code', 'codex', 'crush', 'pi', 'omp'] as const;
/** One of {@link AGENT_KINDS}. */
export type AgentKind = (typeof AGENT_KINDS)[number];
/** Webhook signature schemes. */
export const SCHEMES = ['github', 'gitea', 'forgejo'] as const;
/** How a `command` harness receives its prompt. */
export const PROMPT_DELIVERIES = ['argv', 'stdin', 'file'] as const;
/** One of {@link PROMPT_DELIVERIES}. */
export type PromptDelivery = (typeof PROMPT_DELIVERIES)[number];

/** Pattern of a webhook event name (`X-GitHub-Event`) and of an action. */
export const EVENT_NAME_PATTERN = /^[a-z][a-z_]{0,63}$/;

// Harness and source ids appear in paths, URLs and `webhook.<id>` source names: short ones.
const runnerId = (what: string) => id(what, SHORT_ID_PATTERN);

const envName = z
  .string({ error: 'expected an environment variable name (a string)' })
  .regex(ENV_NAME_PATTERN, {
    error: `expected an environment variable name matching ${ENV_NAME_PATTERN.source}`,
  });

const eventName = z
  .string({ error: 'expected an event name such as pull_request (a string)' })
  .regex(EVENT_NAME_PATTERN, { error: `expected an event name matching ${EVENT_NAME_PATTERN.source}` });

const duration = z
  .string({ error: 'expected a duration such as 30s, 5m or 1h' })
  .refine((s) => parseDuration(s) !== undefined, {
    error: 'expected a duration such as 30s, 5m or 1h, above 0 and at most 24h',
  })
  .meta({ description: 'A duration: a number and ms, s, m or h.', examples: ['30s', '30m'] });

const size = z
  .string({ error: 'expected a size such as 10MB or 1MiB' })
  .refine((s) => parseByteSize(s) !== undefined, {
    error: 'expected a size such as 10MB, 512KB or 1MiB, above 0 and at most 1GiB',
  })
  .meta({
    description: 'A byte size: KB/MB/GB are powers of 10, KiB/MiB/GiB powers of 2.',
    examples: ['10MB'],
  });

const retention = z
  .string({ error: 'expected a retention window such as 30d, 12h or 90m' })
  .refine((s) => parseDuration(s, RETENTION_WINDOW) !== undefined, {
    error: 'expected a retention window: a whole number of minutes, hours or days, such as 30d, 12h or 90m',
  })
  .meta({ description: 'A window: a whole number and m, h or d.', examples: ['30d', '12h'] });

const source = strict({
  id: runnerId('source'),
  scheme: z.enum(SCHEMES, { error: 'expected a scheme: github, gitea or forgejo' }),
  secret_env: envName.meta({
    description: 'Name of the environment variable that holds the HMAC secret (never the secret itself).',
  }),
  trusted_actors: z
    .array(z.string({ error: 'expected a login (a string)' }), { error: 'expected a list of logins' })
    .optional()
    .meta({ description: 'Senders whose login reaches {{event.actor}} (case-insensitive).' }),
});

const trigger = strict({
  source: runnerId('source'),
  events: z
    .array(eventName, { error: 'expected a list of event names such as [pull_request]' })
    .min(1, { error: 'expected at least one event name' }),
  actions: z.array(eventName, { error: 'expected a list of actions such as [opened]' }).optional(),
});

const harness = strict({
  id: runnerId('harness'),
  kind: z.enum(HARNESS_KINDS, {
    error: `expected a kind: ${HARNESS_KINDS.join(', ')}`,
  }),
  resident: z.boolean({ error: 'expected true or false' }).optional(),
  schedule: z
    .string({ error: 'expected a cron expression such as "*/15 * * * *"' })
    .optional()
    .meta({ description: 'A cron expression (5 fields, or 6 with seconds first).' }),
  trigger: trigger.optional(),
  argv: z
    .array(z.string({ error: 'expected an argv element (a string)' }), {
      error: 'expected a list of strings',
    })
    .min(1, { error: 'expected at least the executable' })
    .optional()
    .meta({ description: 'command: the program and its arguments; argv[1:] are templates.' }),
  args: z
    .array(z.string({ error: 'expected an argument (a string)' }), { error: 'expected a list of strings' })
    .optional()
    .meta({ description: 'Agent kinds, resident runs: arguments appended to the executable.' }),
  shell: z.string({ error: 'expected a shell one-liner (a string)' }).optional(),
  transcripts: z
    .enum(AGENT_KINDS, { error: `expected an adapter name: ${AGENT_KINDS.join(', ')}` })
    .optional(),
  prompt: z.string({ error: 'expected the prompt text (a string)' }).optional(),
  prompt_file: z.string({ error: 'expected a file path (a string)' }).optional(),
  prompt_template: z.string({ error: 'expected a prompt template (a string)' }).optional(),
  prompt_template_file: z.string({ error: 'expected a file path (a string)' }).optional(),
  prompt_delivery: z
    .enum(PROMPT_DELIVERIES, { error: 'expected a prompt delivery: argv, stdin or file' })
    .optional(),
  untrusted_inline: z.boolean({ error: 'expected true or false' }).optional(),
  model: z.string({ error: 'expected a model such as provider/id (a string)' }).min(1).optional(),
  workdir: z.string({ error: 'expected a directory path (a string)' }).optional(),
  env: z
    .record(envName, z.string({ error: 'expected a string value' }), {
      error: 'expected a map of NAME: value',
    })
    .optional()
    .meta({ description: 'Literal environment values set by the operator; never rendered.' }),
  tools: strict({
    workspace: z.string({ error: 'expected the path of a workspace file (a string)' }).min(1).meta({
      description: 'The workspace whose granted commands the agent gets (relative to the runner file).',
    }),
    agent: z
      .string({ error: 'expected the id of an agent of that workspace (a string)' })
      .min(1)
      .meta({ description: 'The workspace agent whose grants the run gets.' }),
    max_confidentiality: z
      .string({ error: "expected a ceiling: atoms a,b, JSON clauses, or '' for public only" })
      .optional()
      .meta({ description: "The run's information-flow ceiling (harness serve --max-confidentiality)." }),
  })
    .optional()
    .meta({
      description:
        'Governed tools: the run gets its own `harness serve` (granted, bounded, audited commands) through the agent CLI MCP configuration.',
    }),
  env_inherit: z.array(envName, { error: 'expected a list of variable names' }).optional().meta({
    description: "Names copied from the runner's own environment (PATH, HOME, LANG and TZ always are).",
  }),
  timeout: duration.optional(),
  max_output: size.optional(),
});

/** The runner file's zod schema. */
export const runnerFileSchema = strict({
  listen: z
    .string({ error: 'expected host:port such as 127.0.0.1:8790' })
    .regex(/^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/, {
      error: 'expected host:port such as 127.0.0.1:8790',
    })
    .optional(),
  max_body: size.optional().meta({ description: 'Largest webhook body accepted. Default 1MiB.' }),
  concurrency: z
    .number({ error: 'expected a whole number of runs from 1 to 64' })
    .int({ error: 'expected a whole number of runs from 1 to 64' })
    .min(1, { error: 'expected a whole number of runs from 1 to 64' })
    .max(64, { error: 'expected a whole number of runs from 1 to 64' })
    .optional()
    .meta({
      description: 'Triggered and scheduled runs in flight at once; more wait their turn. Default 4.',
    }),
  delivery_retention: retention.optional().meta({
    description:
      'How long the receiver remembers an accepted webhook body (its SHA-256) and the delivery ids seen, to drop replays of it. Default 30d.',
  }),
  sources: z.array(source, { error: 'expected a list of webhook sources' }).optional(),
  harnesses: z.array(harness, { error: 'expected a list of harnesses' }),
});

/** The runner file as written (the schema's input type). */
export type RunnerFile = z.input<typeof runnerFileSchema>;
/** One harness entry as written. */
export type HarnessEntry = RunnerFile['harnesses'][number];

/** The JSON Schema of the runner file, for editors (shipped as `@harness/runner/runner.schema.json`). */
export function runnerJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(runnerFileSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
