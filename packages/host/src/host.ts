// The command layer behind a broker (or the direct transport): scope checks, argument validation,
// dispatch to the built-ins or to the pack backend, and one audit event per call.
import { BUILTIN_IDS, BUILTIN_ROWS, type BuiltinId, composeSemanticErrors, runBuiltin } from './builtins';
import type { CommandAnswer, ListResult, ManifestRow, RunRequest } from './protocol';
import type { ResolvedScope } from './scope';
import type { AuditEventInput, Store } from './store/types';
import { validateArgs } from './validate';

/** How long a pending or decided approval stays usable (docs/host.md, "Approvals"): one hour. */
export const APPROVAL_TTL_MS = 60 * 60 * 1000;

/** What a pack backend needs to know about the caller of one pack command. */
export interface PackCallContext {
  agent: string;
  actor: string;
  run: string;
  store: Store;
  approvalTtlMs: number;
}

/** The outcome of one pack call as the backend reports it; the host wraps it into the answer. */
export interface PackOutcome {
  answer: CommandAnswer;
  /** Audit detail beyond the host's own (e.g. the governance decision, the exit code). */
  audit?: Record<string, unknown>;
}

/** Pack commands as the host sees them; `@harness/packs` fills this (see ./packs-backend.ts). */
export interface PackBackend {
  /** Every available pack command's manifest row (no broker stamps). */
  rows(): readonly ManifestRow[];
  /** The structured audit payload of a command (`provider`, `container`, `member`, `effects`). */
  auditPayload(id: string): Record<string, unknown>;
  /** The action label, `command:call:{pack}:{command}`. */
  action(id: string): string;
  /** Runs one validated call: governance, approvals, the runner. */
  run(id: string, args: Record<string, unknown>, ctx: PackCallContext): Promise<PackOutcome>;
}

/** Which transport a call came through; direct transport runs built-ins only. */
export type Transport = 'broker' | 'direct';

/** Options of {@link createCommandHost}. */
export interface CommandHostOptions {
  store: Store;
  scope: ResolvedScope;
  packs?: PackBackend;
  transport?: Transport;
  approvalTtlMs?: number;
}

/** A command host bound to one scope: what a broker serves and what direct transport runs. */
export interface CommandHost {
  readonly scope: ResolvedScope;
  /** The rows the scope admits, stamped; `forbidden` when a required job id does not match. */
  list(request: { jobId?: string }): ListResult | { forbidden: string };
  /** Runs one call as the scope's agent and records one audit event. */
  run(request: Omit<RunRequest, 'protocol' | 'id'>): Promise<CommandAnswer>;
}

const refusal = (
  id: string,
  code: CommandAnswer['code'],
  reason: string,
  message: string,
): CommandAnswer => ({
  ok: false,
  id,
  code,
  reason,
  mayHaveLanded: false,
  completed: [],
  body: { message },
});

const isBuiltin = (id: string): id is BuiltinId => (BUILTIN_IDS as readonly string[]).includes(id);

const outcomeOf = (a: CommandAnswer): string => {
  if (a.ok) return 'ok';
  switch (a.code) {
    case 'forbidden':
    case 'refused':
      return 'refused';
    case 'failed':
      return 'failed';
    case 'internal':
      return 'error';
    default:
      return 'rejected';
  }
};

/** Names of an object's top-level keys: what the audit keeps of arguments (never their values). */
const argNames = (args: unknown): string[] =>
  args !== null && typeof args === 'object' && !Array.isArray(args) ? Object.keys(args).sort() : [];

/** Builds the command layer for one scope. */
export function createCommandHost(options: CommandHostOptions): CommandHost {
  const { store, scope } = options;
  const transport = options.transport ?? 'broker';
  const ttl = options.approvalTtlMs ?? APPROVAL_TTL_MS;
  const namespace = `${scope.run}/${scope.actor}`;

  const packRows = (): Map<string, ManifestRow> => {
    const m = new Map<string, ManifestRow>();
    for (const r of options.packs?.rows() ?? []) m.set(r.id, r);
    return m;
  };

  const readOnlyGranted = (row: ManifestRow): boolean =>
    row.effect === 'read' && (scope.readOnly === 'reads' || scope.readOnly.has(row.id));

  const admitted = (): ManifestRow[] => {
    const rows: ManifestRow[] = [];
    for (const id of BUILTIN_IDS) if (scope.builtins.has(id)) rows.push(BUILTIN_ROWS[id]);
    if (transport === 'broker') {
      for (const [id, row] of packRows()) if (scope.commands.has(id)) rows.push(row);
    }
    return rows.map((row) => ({ ...row, readOnlyGranted: readOnlyGranted(row) }));
  };

  const audit = (event: Omit<AuditEventInput, 'run' | 'actor' | 'job'>, jobId: string | undefined): void => {
    try {
      store.appendAudit({ ...event, run: scope.run, actor: scope.actor, job: jobId ?? null });
    } catch (error) {
      // The answer still goes out; the operator sees why the record is missing.
      process.stderr.write(`loom: could not record an audit event: ${(error as Error).message}\n`);
    }
  };

  const jobRefusal = (jobId: string | undefined): string | undefined => {
    if (scope.job === undefined) return undefined;
    if (jobId === undefined) return 'job_required';
    return jobId === scope.job ? undefined : 'job_mismatch';
  };

  return {
    scope,
    list(request) {
      const job = jobRefusal(request.jobId);
      if (job) {
        audit(
          {
            command: '*',
            action: 'loom:list',
            phase: 'list',
            outcome: 'refused',
            code: 'forbidden',
            reason: job,
            payload: {},
          },
          request.jobId,
        );
        return {
          forbidden: `this broker serves job ${JSON.stringify(scope.job)}; the request ${job === 'job_required' ? 'named no job (set LOOM_COMMAND_JOB_ID)' : 'named another job'}`,
        };
      }
      const commands = admitted();
      audit(
        {
          command: '*',
          action: 'loom:list',
          phase: 'list',
          outcome: 'listed',
          code: 'ok',
          reason: null,
          payload: { count: commands.length },
        },
        request.jobId,
      );
      return { commands };
    },

    async run(request) {
      const id = request.command;
      const rows = packRows();
      const builtin = isBuiltin(id);
      const row: ManifestRow | undefined = builtin ? BUILTIN_ROWS[id] : rows.get(id);
      const payloadBase: Record<string, unknown> = builtin
        ? {
            provider: 'loom',
            container: 'loom',
            member: id.slice('loom.'.length),
            effects: row?.effect ?? 'write',
          }
        : row && options.packs
          ? options.packs.auditPayload(id)
          : { provider: 'unknown', member: id };
      const action = builtin
        ? `loom:call:${id.slice('loom.'.length)}`
        : row && options.packs
          ? options.packs.action(id)
          : `unknown:call:${id}`;
      const payload: Record<string, unknown> = {
        ...payloadBase,
        arg_names: argNames(request.args),
        transport,
      };
      const done = (answer: CommandAnswer, extra: Record<string, unknown> = {}): CommandAnswer => {
        audit(
          {
            command: id,
            action,
            phase: 'run',
            outcome: outcomeOf(answer),
            code: answer.code,
            reason: answer.reason ?? null,
            payload: { ...payload, ...extra, ...(request.readOnly ? { read_only: true } : {}) },
          },
          request.jobId,
        );
        return answer;
      };

      const job = jobRefusal(request.jobId);
      if (job)
        return done(
          refusal(
            id,
            'forbidden',
            job,
            `this broker serves job ${JSON.stringify(scope.job)}; the request named ${request.jobId === undefined ? 'none' : 'another'}`,
          ),
        );
      if (!builtin && transport === 'direct') {
        return done(
          refusal(
            id,
            'forbidden',
            'direct_transport',
            `${id} is not a loom.* built-in; pack commands run only through a broker, which holds the agent's grant`,
          ),
        );
      }
      if (!row) {
        return done(
          refusal(
            id,
            'unknown_command',
            'unknown_command',
            `no command has the id ${JSON.stringify(id)}; list the commands with \`loom command list --json\``,
          ),
        );
      }
      const inScope = builtin ? scope.builtins.has(id) : scope.commands.has(id);
      if (!inScope) {
        return done(
          refusal(
            id,
            'forbidden',
            'not_in_scope',
            `${id} is not granted to agent "${scope.agent}" in this broker's scope`,
          ),
        );
      }
      if (request.readOnly) {
        if (row.effect !== 'read') {
          return done(
            refusal(
              id,
              'forbidden',
              'not_read',
              `--read-only was asked, but ${id}'s current effect is ${row.effect ?? 'undeclared (a write)'}`,
            ),
          );
        }
        if (!readOnlyGranted(row)) {
          return done(
            refusal(
              id,
              'forbidden',
              'readonly_not_granted',
              `this scope does not grant read-only execution of ${id}`,
            ),
          );
        }
      }

      // Fill host-sourced arguments: `x-source: "loom"` from --loom, and compose's guard from --expect.
      const args: Record<string, unknown> = { ...request.args };
      let loomIdImplicit = false;
      const props =
        (row.inputs as { properties?: Record<string, { 'x-source'?: unknown }> } | undefined)?.properties ??
        {};
      const errors: { path: string; message: string }[] = [];
      if (request.loomId !== undefined) {
        for (const [name, prop] of Object.entries(props)) {
          if (prop?.['x-source'] !== 'loom') continue;
          if (args[name] === undefined) {
            args[name] = request.loomId;
            loomIdImplicit = true;
          } else if (args[name] !== request.loomId) {
            errors.push({ path: `/${name}`, message: `differs from --loom ${request.loomId}` });
          }
        }
      }
      if (id === 'loom.compose' && request.expectedVersion !== undefined) {
        if (args.expected_version === undefined) args.expected_version = request.expectedVersion;
        else if (args.expected_version !== request.expectedVersion) {
          errors.push({
            path: '/expected_version',
            message: `differs from --expect ${request.expectedVersion}`,
          });
        }
      }
      errors.push(...validateArgs(row.inputs, args));
      if (errors.length === 0 && id === 'loom.compose') errors.push(...composeSemanticErrors(args));
      if (errors.length > 0) {
        return done({
          ok: false,
          id,
          code: 'bad-args',
          mayHaveLanded: false,
          completed: [],
          body: { message: `the arguments do not match ${id}'s schema`, errors },
        });
      }

      let answer: CommandAnswer;
      let extra: Record<string, unknown> = {};
      try {
        if (builtin) {
          answer = runBuiltin(
            store,
            { command: id, args, loomIdImplicit },
            { actor: scope.actor, run: scope.run, namespace },
          );
          const body = answer.body as { receipt?: { request_id?: string; loom_id?: string } } | undefined;
          if (id === 'loom.compose') {
            extra = { request_id: args.request_id, loom_id: body?.receipt?.loom_id ?? args.loom_id ?? null };
          } else if (typeof args.loom_id === 'string') extra = { loom_id: args.loom_id };
        } else {
          const out = await options.packs!.run(id, args, {
            agent: scope.agent,
            actor: scope.actor,
            run: scope.run,
            store,
            approvalTtlMs: ttl,
          });
          answer = out.answer;
          extra = out.audit ?? {};
        }
      } catch (error) {
        answer = {
          ok: false,
          id,
          code: 'internal',
          mayHaveLanded: !builtin,
          completed: [],
          body: { message: `the host failed while running ${id}: ${(error as Error).message}` },
        };
      }
      if (row.ifc !== undefined && answer.ifc === undefined) answer = { ...answer, ifc: row.ifc };
      return done(answer, extra);
    },
  };
}
