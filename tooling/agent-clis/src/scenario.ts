// One agent session through the real Claude Code, end to end: a fresh project set up by the real
// `harness init --client claude-code`, then `claude -p` in it against the fake model, whose plan
// lists the commands, reads the status and a diff, asks for a command it is not granted, asks for a
// commit (held for a person), and asks again once the commit is approved with the real
// `harness approvals approve`. What each step handed the model, the repository and the audit after.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@harness/test-utils';
import { type ClaudeRun, claudeEnv, claudeToolName, runClaude } from './claude-code';
import {
  type HandedResult,
  type PlanStep,
  type RecordedRequest,
  startFakeModel,
  toolResultsOf,
} from './fake-anthropic';
import { CHANGED_FILE, gitIn, makeProject } from './project';

/** The name `harness init` gives its entry in `.mcp.json`. */
export const SERVER = 'harness';
export const PROMPT = 'Look at what changed in this repository, then commit the staged notes.';
export const COMMIT_MESSAGE = 'Add the project notes';
export const FINAL_TEXT = 'Committed the staged notes once you approved it.';

const tool = (name: string) => claudeToolName(SERVER, name);
const commit = { command: 'git.commit', args: { message: COMMIT_MESSAGE } };

/** The fake model's plan, one entry per step; {@link STEP} names each. */
export const PLAN: readonly PlanStep[] = [
  { kind: 'tool_use', name: tool('list_commands'), input: {} },
  { kind: 'tool_use', name: tool('run_read_command'), input: { command: 'git.status', args: {} } },
  {
    kind: 'tool_use',
    name: tool('run_read_command'),
    input: { command: 'git.diff', args: { path: CHANGED_FILE } },
  },
  { kind: 'tool_use', name: tool('run_command'), input: { command: 'git.push', args: {} } },
  { kind: 'tool_use', name: tool('run_command'), input: commit },
  { kind: 'tool_use', name: tool('run_command'), input: commit },
  { kind: 'text', text: FINAL_TEXT },
];

/** The index of each step of {@link PLAN}. */
export const STEP = {
  list: 0,
  status: 1,
  diff: 2,
  push: 3,
  commitHeld: 4,
  commitApproved: 5,
  final: 6,
} as const;

/** What each tool result of the plan is, by the step whose call it answers: the rows of a token table. */
export const RESULT_KINDS: ReadonlyMap<number, string> = new Map([
  [STEP.list, 'list_commands'],
  [STEP.status, 'git.status'],
  [STEP.diff, 'git.diff, 200 changed lines'],
  [STEP.push, 'refusal: git.push, not granted'],
  [STEP.commitHeld, 'approval pending: git.commit'],
  [STEP.commitApproved, 'git.commit, approved'],
]);

/** The programs a scenario runs. */
export interface ScenarioBins {
  claude: string;
  harness: string;
  loom: string;
}

/** The `harness` and `loom` bins of this checkout (built by their packages), beside `claude`. */
export function repoBins(claude: string): ScenarioBins {
  return {
    claude,
    harness: join(repoRoot, 'apps', 'cli', 'dist', 'harness.js'),
    loom: join(repoRoot, 'apps', 'loom', 'dist', 'loom.js'),
  };
}

/** A finished child process. */
export interface Exec {
  code: number;
  stdout: string;
  stderr: string;
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

/** What a scenario left: every output, request and record a test checks. */
export interface ScenarioResult {
  project: string;
  instance: string;
  init: Exec;
  claude: ClaudeRun;
  /** The approval given while the fake model held step {@link STEP.commitApproved}; absent if never reached. */
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

/** The instance directory the `.mcp.json` entry `harness init` wrote passes to `harness serve`. */
function instanceOf(project: string): string {
  const entry = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')).mcpServers[SERVER] as {
    args: string[];
  };
  const at = entry.args.indexOf('--instance');
  const instance = entry.args[at + 1];
  if (at < 0 || instance === undefined) throw new Error(`.mcp.json's ${SERVER} entry names no --instance`);
  return instance;
}

/** The approval id the pending answer in `request` names: `harness approvals approve <id>`. */
export function approvalIdIn(request: RecordedRequest): string | undefined {
  const pending = toolResultsOf(request.body).find((r) => r.step === STEP.commitHeld);
  return /harness approvals approve (apr-[0-9a-f]+)/.exec(pending?.text ?? '')?.[1];
}

/** Runs the whole session in `root` (a fresh, empty temp directory). */
export async function runScenario(bins: ScenarioBins, root: string): Promise<ScenarioResult> {
  const home = join(root, 'home');
  const project = join(root, 'project');
  makeProject(project);
  const init = await node(bins.harness, ['init', '--client', 'claude-code'], { home, cwd: project });
  if (init.code !== 0) throw new Error(`harness init failed (exit ${init.code}): ${init.stderr}`);
  const instance = instanceOf(project);

  const model = await startFakeModel({ plan: PLAN, agentTool: tool('list_commands') });
  try {
    // The person approves when, and only when, the pending answer has reached the model.
    const held = model.hold(STEP.commitApproved);
    let approval: ScenarioResult['approval'];
    const approving = held.arrived.then(async (request) => {
      try {
        const id = approvalIdIn(request) ?? 'no-approval-id-in-the-answer';
        const by = ['--by', 'person:reviewer', '--instance', instance];
        approval = { id, run: await node(bins.harness, ['approvals', 'approve', id, ...by], { home }) };
      } finally {
        held.release();
      }
    });
    const env = claudeEnv({ home, baseUrl: model.url });
    const claude = await runClaude({ bin: bins.claude, cwd: project, env, prompt: PROMPT, server: SERVER });
    if (model.requests.some((r) => r.step === STEP.commitApproved)) await approving;
    const audit = await node(bins.loom, ['audit', 'tail', '--json', '-n', '100', '--instance', instance], {
      home,
    });
    if (audit.code !== 0) throw new Error(`loom audit tail failed (exit ${audit.code}): ${audit.stderr}`);
    return {
      project,
      instance,
      init,
      claude,
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
