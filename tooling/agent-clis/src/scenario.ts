// The agent session every client runs, end to end, apart from the client itself: a fresh project set
// up by the real `harness init --client <client>`, a fake model whose plan lists the commands, reads
// the status and a diff, asks for a command it is not granted, asks for a commit (held for a person),
// and asks again once the commit is approved with the real `harness approvals approve`. Then the
// repository and the audit. How a client is set up and run is its own file's (claude-code-scenario.ts,
// codex-scenario.ts).
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { projectInstance } from '@harness/config/instance';
import { repoRoot } from '@harness/test-utils';
import { type Exec, runNode } from './exec';
import {
  type FakeModel,
  type HandedResult,
  type PlanStep,
  type RecordedRequest,
  startFakeModel,
  type WireFormat,
} from './fake-server';
import { CHANGED_FILE, gitIn, makeProject } from './project';

/** The name `harness init` gives its server entry. */
export const SERVER = 'harness';
export const PROMPT = 'Look at what changed in this repository, then commit the staged notes.';
export const COMMIT_MESSAGE = 'Add the project notes';
export const FINAL_TEXT = 'Committed the staged notes once you approved it.';
/** The arguments of the plan's `run_command` call that commits the staged notes. */
export const COMMIT_CALL = { command: 'git.commit', args: { message: COMMIT_MESSAGE } } as const;

/** The index of each step of the plan ({@link scenarioPlan}). */
export const STEP = {
  list: 0,
  status: 1,
  diff: 2,
  push: 3,
  commitHeld: 4,
  commitApproved: 5,
  final: 6,
} as const;

/** The name a client gives tool `tool` of the MCP server `server`. */
export type ToolNamer = (server: string, tool: string) => string;

/** A plan step calling harness serve's `tool`, named as the client names it. */
function call(toolName: ToolNamer, tool: string, args: unknown): PlanStep {
  return { kind: 'tool_call', name: toolName(SERVER, tool), arguments: args };
}

/** The fake model's plan, one entry per {@link STEP}, calling harness serve's tools by their `toolName`. */
export function scenarioPlan(toolName: ToolNamer): PlanStep[] {
  return [
    call(toolName, 'list_commands', {}),
    call(toolName, 'run_read_command', { command: 'git.status', args: {} }),
    call(toolName, 'run_read_command', { command: 'git.diff', args: { path: CHANGED_FILE } }),
    call(toolName, 'run_command', { command: 'git.push', args: {} }),
    call(toolName, 'run_command', COMMIT_CALL),
    call(toolName, 'run_command', COMMIT_CALL),
    { kind: 'text', text: FINAL_TEXT },
  ];
}

/** The plan of a session that asks for the commit once, then ends: what a client does with serve's question. */
export function commitOncePlan(toolName: ToolNamer): PlanStep[] {
  return [call(toolName, 'run_command', COMMIT_CALL), { kind: 'text', text: FINAL_TEXT }];
}

/** The steps whose call executed a command, with that command. */
export const EXECUTED_STEPS = [
  [STEP.status, 'git.status'],
  [STEP.diff, 'git.diff'],
  [STEP.commitApproved, 'git.commit'],
] as const;

/** What each tool result of the plan is, by the step whose call it answers: the rows of a token table. */
export const RESULT_KINDS: ReadonlyMap<number, string> = new Map([
  [STEP.list, 'list_commands'],
  [STEP.status, 'git.status'],
  [STEP.diff, 'git.diff, 200 changed lines'],
  [STEP.push, 'refusal: git.push, not granted'],
  [STEP.commitHeld, 'approval pending: git.commit'],
  [STEP.commitApproved, 'git.commit, approved'],
]);

/** The `harness` and `loom` bins a session runs beside the client. */
export interface HarnessBins {
  harness: string;
  loom: string;
}

/** The `harness` and `loom` bins of this checkout (built by their packages). */
export function repoBins(): HarnessBins {
  return {
    harness: join(repoRoot, 'apps', 'cli', 'dist', 'harness.js'),
    loom: join(repoRoot, 'apps', 'loom', 'dist', 'loom.js'),
  };
}

/** One audit event as `loom audit tail --json` prints it (the fields the checks read). */
export interface AuditEvent {
  seq: number;
  run: string;
  actor: string;
  command: string;
  phase: string;
  outcome: string;
  code: string;
}

/** The approval a person gave with `harness approvals approve`: its id and that run's output. */
export interface Approval {
  id: string;
  run: Exec;
}

/** What a session left, whatever the client: every output, request and record a test checks. */
export interface SessionResult<Body, Handed extends HandedResult> {
  project: string;
  home: string;
  instance: string;
  init: Exec;
  /** The approval given while the fake model held the step it was asked at; absent if never reached. */
  approval?: Approval;
  requests: RecordedRequest<Body>[];
  handed: Handed[];
  unknownPaths: string[];
  /** `git log --format=%s` after the run, newest first. */
  commits: string[];
  audit: AuditEvent[];
}

/** Where a client runs and what it is told: the project, its HOME, the server's name, the prompt. */
export interface SessionPlace {
  project: string;
  home: string;
  server: string;
  prompt: string;
}

/** What a client adds to a session: how it reads init's entry, which API it speaks, how it runs. */
export interface ClientSession<Body, Handed extends HandedResult, Setup extends object, Run extends object> {
  /** The `--client` of `harness init`. */
  initClient: string;
  /** The API the client calls its model with. */
  wire: WireFormat<Body, Handed>;
  /** How the client names the server's tools for its model. */
  toolName: ToolNamer;
  plan: readonly PlanStep[];
  /** What the client reads of the entry init wrote, and the instance directory the entry names. */
  readSetup: (at: SessionPlace) => Promise<{ setup: Setup; instance: string }>;
  /** Runs the client in the project against the fake model at `modelUrl` to completion. */
  run: (at: SessionPlace & { modelUrl: string; setup: Setup }) => Promise<Run>;
  /** Whether a person approves the held commit with `harness approvals approve` at {@link STEP.commitApproved}. */
  personApproves: boolean;
}

/** The approval id a result handed to the model names: `harness approvals approve <id>`. */
export function approvalIdIn(text: string | undefined): string | undefined {
  return /harness approvals approve (apr-[0-9a-f]+)/.exec(text ?? '')?.[1];
}

/**
 * The instance directory a server entry serves: the one its arguments pass to `harness serve`, or,
 * for an entry without paths (`harness serve`, started in the project), the project's own instance
 * under `home`, as `harness init` made it.
 */
export function instanceIn(args: readonly string[], at: { project: string; home: string }): string {
  const flag = args.indexOf('--instance');
  const instance = flag < 0 ? undefined : args[flag + 1];
  return instance ?? projectInstance(realpathSync(at.project), { HOME: at.home });
}

/** Approves the pending commit once the fake model holds `step`: when, and only when, the pending answer reached it. */
function approveWhenHeld<Body, Handed extends HandedResult>(
  model: FakeModel<Body, Handed>,
  step: number,
  at: { harness: string; home: string },
): Promise<Approval> {
  const held = model.hold(step);
  return held.arrived.then(async () => {
    try {
      const pending = model.handedResults().find((h) => h.step === STEP.commitHeld);
      const id = approvalIdIn(pending?.text) ?? 'no-approval-id-in-the-answer';
      // As the answer words it: the id alone finds the instance init put beside the default one.
      const args = ['approvals', 'approve', id, '--by', 'person:reviewer'];
      return { id, run: await runNode(at.harness, args, { home: at.home }) };
    } finally {
      held.release();
    }
  });
}

async function readAudit(loom: string, instance: string, home: string): Promise<AuditEvent[]> {
  const audit = await runNode(loom, ['audit', 'tail', '--json', '-n', '100', '--instance', instance], {
    home,
  });
  if (audit.code !== 0) throw new Error(`loom audit tail failed (exit ${audit.code}): ${audit.stderr}`);
  return (JSON.parse(audit.stdout) as { events: AuditEvent[] }).events;
}

/** Runs one session of `client` in `root` (a fresh, empty temp directory). */
export async function runSession<Body, Handed extends HandedResult, Setup extends object, Run extends object>(
  bins: HarnessBins,
  root: string,
  client: ClientSession<Body, Handed, Setup, Run>,
): Promise<SessionResult<Body, Handed> & Setup & Run> {
  const home = join(root, 'home');
  const project = join(root, 'project');
  makeProject(project);
  const init = await runNode(bins.harness, ['init', '--client', client.initClient], { home, cwd: project });
  if (init.code !== 0) throw new Error(`harness init failed (exit ${init.code}): ${init.stderr}`);
  const place: SessionPlace = { project, home, server: SERVER, prompt: PROMPT };
  const { setup, instance } = await client.readSetup(place);

  const agentTool = client.toolName(SERVER, 'list_commands');
  const model = await startFakeModel(client.wire, { plan: client.plan, agentTool });
  try {
    const approveAt = STEP.commitApproved;
    const approving = client.personApproves
      ? approveWhenHeld(model, approveAt, { harness: bins.harness, home })
      : undefined;
    const run = await client.run({ ...place, modelUrl: model.url, setup });
    const reached = approving !== undefined && model.requests.some((r) => r.step === approveAt);
    const approval = reached ? await approving : undefined;
    if (!existsSync(instance))
      throw new Error(
        `the client never started harness serve (no instance at ${instance}); what its run gave: ${JSON.stringify(run).slice(-4000)}`,
      );
    return {
      project,
      home,
      instance,
      init,
      ...(approval ? { approval } : {}),
      requests: model.requests,
      handed: model.handedResults(),
      unknownPaths: model.unknown,
      commits: gitIn(project, 'log', '--format=%s').trim().split('\n'),
      audit: await readAudit(bins.loom, instance, home),
      ...setup,
      ...run,
    };
  } finally {
    await model.close();
  }
}
