// Agent sessions through the real Codex CLI: `harness init --client codex` writes
// `[mcp_servers.harness]` into `~/.codex/config.toml`, then `codex exec` runs in the project against a
// fake Responses API model. The main session is the one Claude Code runs (scenario.ts), step for
// step; two short sessions show what Codex itself answers when `harness serve` asks it for the
// person's approval (MCP elicitation).
import {
  approveServerTools,
  type CodexServerEntry,
  codexEnv,
  codexExec,
  codexServerEntry,
  codexToolName,
  providerOverrides,
  serverArgs,
  serverStartTimeout,
} from './codex';
import type { Exec } from './exec';
import { RESPONSES_API, type ResponsesBody, type ResponsesHandedResult } from './fake-openai';
import type { PlanStep } from './fake-server';
import {
  commitOncePlan,
  type HarnessBins,
  instanceIn,
  runSession,
  SERVER,
  type SessionResult,
  scenarioPlan,
} from './scenario';

/** The fake model's plan for Codex: the session's steps with Codex's tool names. */
export const CODEX_PLAN: readonly PlanStep[] = scenarioPlan(codexToolName);

/** The plan of a session that only asks for the commit once: what Codex does with serve's question. */
export const ELICIT_PLAN: readonly PlanStep[] = commitOncePlan(codexToolName);

/** The programs a Codex session runs. */
export type CodexBins = HarnessBins & { codex: string };

/** What a Codex session left: every output, request and record a test checks. */
export type CodexSession = SessionResult<ResponsesBody, ResponsesHandedResult> & {
  /** The entry init wrote, as Codex itself reads it (`codex mcp get harness --json`). */
  entry: CodexServerEntry;
  /** What `codex exec` printed. */
  codex: Exec;
};

/** How one session runs Codex: its plan, its flags and overrides, and whether a person approves. */
interface SessionOptions {
  plan: readonly PlanStep[];
  flags: readonly string[];
  overrides: (entry: CodexServerEntry) => string[];
  /** Whether a person approves the held commit with `harness approvals approve`. */
  personApproves: boolean;
}

function runCodexSession(bins: CodexBins, root: string, options: SessionOptions): Promise<CodexSession> {
  return runSession(bins, root, {
    initClient: 'codex',
    wire: RESPONSES_API,
    toolName: codexToolName,
    plan: options.plan,
    readSetup: async ({ project, home, server }) => {
      const read = await codexServerEntry({ bin: bins.codex, cwd: project, env: codexEnv(home), server });
      if (!read.ok) throw new Error(`Codex does not read the entry harness init wrote: ${read.reason}`);
      const instance = instanceIn(read.entry.transport.args, { project, home });
      return { setup: { entry: read.entry }, instance };
    },
    run: async ({ project, home, prompt, modelUrl, setup }) => {
      const overrides = [
        ...providerOverrides(modelUrl),
        serverStartTimeout(SERVER),
        ...options.overrides(setup.entry),
      ];
      const env = codexEnv(home);
      return {
        codex: await codexExec({
          bin: bins.codex,
          cwd: project,
          env,
          prompt,
          overrides,
          flags: options.flags,
        }),
      };
    },
    personApproves: options.personApproves,
  });
}

/**
 * The whole plan: Codex as `harness init` registered it, with the server's tools approved in Codex
 * and serve started with `--approvals queue` (the entry's own arguments plus that flag), so the
 * commit waits for the person's `harness approvals approve`. Without the flag Codex itself answers
 * serve's question: see {@link runCodexElicitation}.
 */
export function runCodexScenario(bins: CodexBins, root: string): Promise<CodexSession> {
  return runCodexSession(bins, root, {
    plan: CODEX_PLAN,
    flags: [],
    overrides: (entry) => [
      approveServerTools(SERVER),
      serverArgs(SERVER, [...entry.transport.args, '--approvals', 'queue']),
    ],
    personApproves: true,
  });
}

/**
 * How Codex answers `harness serve`'s approval question (MCP elicitation) with the entry exactly as
 * `harness init` wrote it: `full-access` runs `--dangerously-bypass-approvals-and-sandbox`; `default`
 * runs Codex's default sandbox with the server's tools approved. The plan asks for the commit once.
 */
export function runCodexElicitation(
  bins: CodexBins,
  root: string,
  mode: 'full-access' | 'default',
): Promise<CodexSession> {
  return runCodexSession(bins, root, {
    plan: ELICIT_PLAN,
    flags: mode === 'full-access' ? ['--dangerously-bypass-approvals-and-sandbox'] : [],
    overrides: () => (mode === 'full-access' ? [] : [approveServerTools(SERVER)]),
    personApproves: false,
  });
}
