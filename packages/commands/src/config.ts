// Reading and checking the host configuration files (commands and Loom authoring).
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { warnQueuePath } from '@harness/protocol';
import { z } from 'zod';

/** One problem found in a configuration: where, and what is wrong with it. */
export interface ConfigIssue {
  code: string;
  path: string;
  message: string;
}

/** Expected failures are data: a parsed value, or the issues that stopped it. */
export type ConfigResult<T> = { ok: true; value: T } | { ok: false; issues: ConfigIssue[] };

const RESERVED_ENV = new Set(['PATH', 'LOOM_PAGE_RPC_QUEUE']);

const absolutePath = (what: string) =>
  z
    .string({ error: `${what} must be a string holding an absolute path` })
    .min(1, `${what} must not be empty`)
    .refine((p) => isAbsolute(p), {
      message: `${what} must be an absolute path (found a relative one); write it from /`,
    })
    .refine((p) => !p.includes('\0'), { message: `${what} must not contain a NUL character` });

/** A direct run identity: nonempty, already trimmed, at most 128 characters (seed 001). */
const runIdentity = (what: string) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .max(128, `${what} must be at most 128 characters`)
    .refine((v) => v === v.trim(), {
      message: `${what} must be canonically trimmed (no surrounding whitespace)`,
    });

/**
 * The schemas of both configurations, built at their first use: a process that reads no
 * configuration file (serve on its embedded default) never builds them.
 */
function buildSchemas() {
  /** The job-id variable: an environment name the CLI reads, never one that reroutes the call. */
  const jobIdEnvVar = z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, {
      message:
        'jobIdEnvVar must be uppercase letters, digits and underscores, starting with a letter or underscore',
    })
    .refine((v) => !RESERVED_ENV.has(v), {
      message:
        'jobIdEnvVar cannot be PATH or LOOM_PAGE_RPC_QUEUE: the job id must not replace the search path or the queue',
    });

  const brokerTransport = z.object({
    kind: z.literal('broker'),
    socketPath: absolutePath('transport.socketPath'),
    /** `socket` speaks the broker's socket protocol directly (the fast path); `cli` (default) runs the CLI. */
    client: z.enum(['cli', 'socket']).optional(),
  });

  const directTransport = z.object({
    kind: z.literal('direct'),
    instanceDir: absolutePath('transport.instanceDir'),
    runId: runIdentity('transport.runId'),
    actor: runIdentity('transport.actor').refine((v) => v.startsWith('agent:'), {
      message: 'transport.actor must be an agent actor (start with "agent:")',
    }),
  });

  const common = {
    cliPath: absolutePath('cliPath'),
    jobIdEnvVar: jobIdEnvVar.optional(),
    /** Per host call; a call still running then is killed and its outcome reads as unknown. */
    timeoutMs: z.number().int().positive().max(3_600_000).optional(),
    /** The executable search path given to the CLI; default the harness process's own PATH. */
    searchPath: z.string().optional(),
  };

  const commandsSchema = z.object({
    ...common,
    transport: z
      .object({ kind: z.string() })
      .loose()
      .superRefine((t, ctx) => {
        if (t.kind !== 'broker') {
          ctx.addIssue({
            code: 'custom',
            message: `transport.kind must be "broker" (found ${JSON.stringify(t.kind)}): only the broker enforces the run's grant and stamps the agent actor, so a direct transport would leave attribution to this file`,
          });
        }
      })
      .pipe(brokerTransport),
  });

  const authoringSchema = z.object({
    ...common,
    transport: z.discriminatedUnion('kind', [brokerTransport, directTransport], {
      error: 'transport.kind must be "broker" or "direct"',
    }),
    boundLoomId: z.string().min(1).max(256).optional(),
    allowCommentThreads: z
      .boolean({ error: 'allowCommentThreads must be the boolean true or false' })
      .optional(),
  });
  return { brokerTransport, directTransport, commandsSchema, authoringSchema };
}

let built: ReturnType<typeof buildSchemas> | undefined;
const schemas = (): ReturnType<typeof buildSchemas> => {
  built ??= buildSchemas();
  return built;
};

/** The broker transport: the broker's socket, and which client reaches it. */
export type BrokerTransport = z.infer<ReturnType<typeof buildSchemas>['brokerTransport']>;
/** The direct transport: an instance and a pinned agent attribution (authoring only). */
export type DirectTransport = z.infer<ReturnType<typeof buildSchemas>['directTransport']>;

/** The host configuration of the three command tools. Only the broker transport exists here. */
export interface CommandsConfig {
  cliPath: string;
  jobIdEnvVar?: string;
  timeoutMs?: number;
  searchPath?: string;
  transport: BrokerTransport;
}

/** The host configuration of the Loom authoring tools: broker or direct. */
export interface AuthoringConfig {
  cliPath: string;
  jobIdEnvVar?: string;
  timeoutMs?: number;
  searchPath?: string;
  transport: BrokerTransport | DirectTransport;
  boundLoomId?: string;
  allowCommentThreads?: boolean;
}

/** Either host configuration; the host client needs only what the two share. */
export type HostConfig = CommandsConfig | AuthoringConfig;

/**
 * Reads the old name of `transport.socketPath`, `transport.queuePath` (configurations in the wild
 * use it): it is taken as `socketPath`, with one deprecation warning per process. Both at once is
 * an issue, since they could disagree.
 */
function renameQueuePath(value: unknown): ConfigResult<unknown> {
  if (typeof value !== 'object' || value === null) return { ok: true, value };
  const transport = (value as { transport?: unknown }).transport;
  if (typeof transport !== 'object' || transport === null || !('queuePath' in transport))
    return { ok: true, value };
  const { queuePath, ...rest } = transport as Record<string, unknown>;
  if ('socketPath' in rest)
    return {
      ok: false,
      issues: [
        {
          code: 'custom',
          path: 'transport.queuePath',
          message: 'give transport.socketPath only: transport.queuePath is its old name, and both are set',
        },
      ],
    };
  warnQueuePath('transport.queuePath', 'transport.socketPath');
  return {
    ok: true,
    value: { ...(value as Record<string, unknown>), transport: { ...rest, socketPath: queuePath } },
  };
}

function toIssues(error: z.ZodError): ConfigIssue[] {
  return error.issues.map((i) => ({
    code: i.code,
    path: i.path.map(String).join('.') || '(root)',
    message: i.message,
  }));
}

function strip<T extends Record<string, unknown>>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}

/**
 * Validates a commands configuration value. A `jobId` in it is ignored (the embedder supplies the
 * job id per invocation); a transport other than `broker` is refused with the reason.
 */
export function parseCommandsConfig(value: unknown): ConfigResult<CommandsConfig> {
  const renamed = renameQueuePath(value);
  if (!renamed.ok) return renamed;
  const r = schemas().commandsSchema.safeParse(renamed.value);
  if (!r.success) return { ok: false, issues: toIssues(r.error) };
  const { transport, ...rest } = r.data;
  return { ok: true, value: { ...strip(rest), transport: strip(transport) } as CommandsConfig };
}

/** Validates an authoring configuration value (broker or direct transport). */
export function parseAuthoringConfig(value: unknown): ConfigResult<AuthoringConfig> {
  const renamed = renameQueuePath(value);
  if (!renamed.ok) return renamed;
  const r = schemas().authoringSchema.safeParse(renamed.value);
  if (!r.success) return { ok: false, issues: toIssues(r.error) };
  const { transport, ...rest } = r.data;
  return { ok: true, value: { ...strip(rest), transport: strip(transport) } as AuthoringConfig };
}

/** A failure about the configuration file itself, rather than a field in it. */
function fileIssue(code: string, message: string): { ok: false; issues: ConfigIssue[] } {
  return { ok: false, issues: [{ code, path: '(file)', message }] };
}

function readJson(path: string): ConfigResult<unknown> {
  if (!isAbsolute(path)) {
    return fileIssue('relative_path', `the configuration path must be absolute (found "${path}")`);
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'read_failed';
    return fileIssue('unreadable', `cannot read the configuration file ${path} (${code})`);
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return fileIssue('invalid_json', `the configuration file ${path} is not valid JSON`);
  }
}

/** Reads and validates a commands configuration file, on the host (never inside a sandbox). */
export function readCommandsConfig(path: string): ConfigResult<CommandsConfig> {
  const j = readJson(path);
  return j.ok ? parseCommandsConfig(j.value) : j;
}

/** Reads and validates an authoring configuration file, on the host (never inside a sandbox). */
export function readAuthoringConfig(path: string): ConfigResult<AuthoringConfig> {
  const j = readJson(path);
  return j.ok ? parseAuthoringConfig(j.value) : j;
}

/** The environment variable naming the commands configuration file. */
export const COMMANDS_CONFIG_ENV = 'CF_HARNESS_LOOM_COMMANDS_CONFIG';
/** The environment variable naming the authoring configuration file. */
export const AUTHORING_CONFIG_ENV = 'CF_HARNESS_LOOM_AUTHORING_CONFIG';

/**
 * Picks the configuration path a CLI was given: the flag wins over the environment variable
 * (an explicit argument is the more specific choice). A relative path is refused.
 */
export function resolveConfigPath(options: {
  flag?: string | undefined;
  env?: string | undefined;
}): ConfigResult<string | undefined> {
  const chosen = options.flag ?? (options.env === '' ? undefined : options.env);
  if (chosen === undefined) return { ok: true, value: undefined };
  if (!isAbsolute(chosen)) {
    return fileIssue('relative_path', `the configuration path must be absolute (found "${chosen}")`);
  }
  return { ok: true, value: chosen };
}
