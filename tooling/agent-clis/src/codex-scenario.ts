// Agent sessions through the real Codex CLI, end to end: a fresh project set up by the real
// `harness init --client codex` (which writes `[mcp_servers.harness]` into `~/.codex/config.toml`),
// then `codex exec` in it against the fake model. The main session follows the same plan as the
// Claude Code one (scenario.ts), step for step: list the commands, read the status and a diff, ask
// for a command not granted, ask for a commit (held for a person), and ask again once the commit is
// approved with the real `harness approvals approve`. Two short sessions show what Codex itself
// answers when `harness serve` asks it for the person's approval (MCP elicitation).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import {
  approveServerTools,
  type CodexRun,
  type CodexServerEntry,
  codexEnv,
  codexExec,
  codexServerEntry,
  codexToolName,
  providerOverrides,
  serverArgs,
} from './codex';
import { type HandedResult, type PlanStep, type RecordedRequest, startFakeModel } from './fake-openai';
import { CHANGED_FILE, gitIn, makeProject } from './project';
import {
  type AuditEvent,
  COMMIT_MESSAGE,
  type Exec,
  FINAL_TEXT,
  PROMPT,
  type ScenarioBins,
  SERVER,
  STEP,
} from './scenario';

const tool = (name: string) => codexToolName(SERVER, name);
const commit = { command: 'git.commit', args: { message: COMMIT_MESSAGE } };

/** The fake model's plan for Codex: the Claude Code plan's steps ({@link STEP}), with Codex's tool names. */
export const CODEX_PLAN: readonly PlanStep[] = [
  { kind: 'tool_call', name: tool('list_commands'), arguments: {} },
  { kind: 'tool_call', name: tool('run_read_command'), arguments: { command: 'git.status', args: {} } },
  {
    kind: 'tool_call',
    name: tool('run_read_command'),
    arguments: { command: 'git.diff', args: { path: CHANGED_FILE } },
  },
  { kind: 'tool_call', name: tool('run_command'), arguments: { command: 'git.push', args: {} } },
  { kind: 'tool_call', name: tool('run_command'), arguments: commit },
  { kind: 'tool_call', name: tool('run_command'), arguments: commit },
  { kind: 'text', text: FINAL_TEXT },
];

/** The plan of a session that only asks for the commit once: what Codex does with serve's question. */
export const ELICIT_PLAN: readonly PlanStep[] = [
  { kind: 'tool_call', name: tool('run_command'), arguments: commit },
  { kind: 'text', text: FINAL_TEXT },
];

/** The programs a Codex session runs. */
export type CodexBins = Omit<ScenarioBins, 'claude'> & { codex: string };

/** What a Codex session left: every output, request and record a test checks. */
export interface CodexSession {
  project: string;
  home: string;
  instance: string;
  init: Exec;
  /** The entry init wrote, as Codex itself reads it (`codex mcp get harness --json`). */
  entry: CodexServerEntry;
  codex: CodexRun;
  /** The approval given while the fake model held {@link STEP.commitApproved}; absent if never reached. */
  approval?: { id: string; run: Exec };
  requests: RecordedRequest[];
  handed: HandedResult[];
  unknownPaths: string[];
  /** `git log --format=%s` after the run, newest first. */
  commits: string[];
  audit: AuditEvent[];
}

function node(bin: string, args: string[], options: { home: string; cwd?: string }): Promise<Exec> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? '', HOME: options.home, NO_COLOR: '1' };
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: options.cwd, env, timeout: 60_000, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

/** The approval id an answer handed to the model names: `harness approvals approve <id>`. */
export function approvalIdIn(handed: HandedResult | undefined): string | undefined {
  return /harness approvals approve (apr-[0-9a-f]+)/.exec(handed?.text ?? '')?.[1];
}

/** A fresh project in `root` with `harness init --client codex` run in it, and the entry Codex reads. */
async function prepare(bins: CodexBins, root: string) {
  const home = join(root, 'home');
  const project = join(root, 'project');
  makeProject(project);
  const init = await node(bins.harness, ['init', '--client', 'codex'], { home, cwd: project });
  if (init.code !== 0) throw new Error(`harness init failed (exit ${init.code}): ${init.stderr}`);
  const read = await codexServerEntry({ bin: bins.codex, cwd: project, env: codexEnv(home), server: SERVER });
  if (!read.ok) throw new Error(`Codex does not read the entry harness init wrote: ${read.reason}`);
  const args = read.entry.transport.args;
  const instance = args[args.indexOf('--instance') + 1];
  if (!args.includes('--instance') || instance === undefined)
    throw new Error(`the ${SERVER} entry names no --instance: ${JSON.stringify(args)}`);
  return { home, project, init, entry: read.entry, instance };
}

/** How one session runs Codex: its plan, its flags and overrides, and whether a person approves. */
interface SessionOptions {
  plan: readonly PlanStep[];
  flags: readonly string[];
  overrides: (entry: CodexServerEntry) => string[];
  /** Approve the pending commit with `harness approvals approve` while the fake model holds this step. */
  approveAt?: number;
}

async function runSession(bins: CodexBins, root: string, options: SessionOptions): Promise<CodexSession> {
  const { home, project, init, entry, instance } = await prepare(bins, root);
  const model = await startFakeModel({ plan: options.plan, agentTool: tool('list_commands') });
  try {
    let approval: CodexSession['approval'];
    let approving: Promise<void> | undefined;
    if (options.approveAt !== undefined) {
      // The person approves when, and only when, the pending answer has reached the model.
      const held = model.hold(options.approveAt);
      approving = held.arrived.then(async () => {
        try {
          const pending = model.handedResults().find((h) => h.step === STEP.commitHeld);
          const id = approvalIdIn(pending) ?? 'no-approval-id-in-the-answer';
          const by = ['--by', 'person:reviewer', '--instance', instance];
          approval = { id, run: await node(bins.harness, ['approvals', 'approve', id, ...by], { home }) };
        } finally {
          held.release();
        }
      });
    }
    const overrides = [...providerOverrides(model.url), ...options.overrides(entry)];
    const codex = await codexExec({
      bin: bins.codex,
      cwd: project,
      env: codexEnv(home),
      prompt: PROMPT,
      overrides,
      flags: options.flags,
    });
    if (approving && model.requests.some((r) => r.step === options.approveAt)) await approving;
    const audit = await node(bins.loom, ['audit', 'tail', '--json', '-n', '100', '--instance', instance], {
      home,
    });
    if (audit.code !== 0) throw new Error(`loom audit tail failed (exit ${audit.code}): ${audit.stderr}`);
    return {
      project,
      home,
      instance,
      init,
      entry,
      codex,
      ...(approval ? { approval } : {}),
      requests: model.requests,
      handed: model.handedResults(),
      unknownPaths: model.unknown,
      commits: gitIn(project, 'log', '--format=%s').trim().split('\n'),
      audit: (JSON.parse(audit.stdout) as { events: AuditEvent[] }).events,
    };
  } finally {
    await model.close();
  }
}

/**
 * The whole plan: Codex as `harness init` registered it, with the server's tools approved in Codex
 * and serve started with `--approvals queue` (the entry's own arguments plus that flag), so the
 * commit waits for the person's `harness approvals approve`. Without the flag Codex itself answers
 * serve's question: see {@link runCodexElicitation}.
 */
export function runCodexScenario(bins: CodexBins, root: string): Promise<CodexSession> {
  return runSession(bins, root, {
    plan: CODEX_PLAN,
    flags: [],
    overrides: (entry) => [
      approveServerTools(SERVER),
      serverArgs(SERVER, [...entry.transport.args, '--approvals', 'queue']),
    ],
    approveAt: STEP.commitApproved,
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
  return runSession(bins, root, {
    plan: ELICIT_PLAN,
    flags: mode === 'full-access' ? ['--dangerously-bypass-approvals-and-sandbox'] : [],
    overrides: () => (mode === 'full-access' ? [] : [approveServerTools(SERVER)]),
  });
}
