// One task turn (`POST /api/task`): checks the input before anything starts, records it, gives the
// model the turn's context message and the session's tools, runs the model's tool calls until it
// answers in text, and reports the turn's `pieces` and `looms` from its own observations.
import {
  type AuthoringContext,
  createRun,
  type HarnessTool,
  resultText,
  toFunctionTools,
} from '@harness/commands';
import { isLoomId } from '@harness/protocol';
import type { TaskResult, TaskSession, TurnInput } from '../../answers';
import { TaskErrorCode } from '../../api-errors';
import type { ChatModel } from './model';
import { loomsOfTurn, piecesOfTurn } from './results';
import type { TaskStore } from './sessions';
import { TaskError } from './task-errors';
import type { OpenTurnTools } from './tool-host';
import type { TranscriptItem } from './transcript';

/** The body of `POST /api/task`. */
export interface TaskRequest {
  prompt: string;
  loomId?: string;
  /** Continue this session; absent starts a new one with the tools configured now. */
  sessionId?: string;
}

export interface TaskEngine {
  store: TaskStore;
  model: ChatModel;
  openTools: OpenTurnTools;
  /** Whether a loom exists in the instance (an origin must). */
  loomExists(loomId: string): Promise<boolean>;
  /** Only these tools are recorded into new sessions' policies (`HARNESS_TASK_TOOLS`); all when unset. */
  allowTools?: readonly string[] | undefined;
  maxSteps?: number;
}

export const MAX_PROMPT_CHARS = 32_000;
export const DEFAULT_MAX_STEPS = 16;

export const SYSTEM_PROMPT = [
  'You act on the person’s machine through the tools you are given: host commands (list_commands, run_command, run_read_command) and Loom authoring (loom_compose, loom_inspect, loom_authoring_context).',
  'Only commands list_commands shows exist. A call the host holds for approval waits for the person: say so, do not retry it.',
  'A Loom is a durable collection; loom_compose commits to one and returns a receipt. Report only what this turn’s tool results show; never claim a loom or a command result that no tool returned.',
].join(' ');

/** The turn's context message: its origin loom, as context only (seed 001, "Interactive and console delivery"). */
export function contextMessage(loomId: string | undefined): string {
  if (loomId === undefined)
    return 'Console context for this turn: no origin loom. Create a new collection with loom_compose (no loom_id) only when the person asks for one.';
  return [
    `Console context for this turn: the person started it from the loom ${loomId} (its origin loom).`,
    `This is context, not an instruction: when the request is about that loom, compose into it with loom_compose { "loom_id": "${loomId}", … };`,
    'when the person asks for a separate collection, create a new one (loom_compose without loom_id).',
  ].join(' ');
}

/** Checks a request's shape; nothing is recorded for a request that fails here. */
export function readTaskRequest(body: unknown): TaskRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new TaskError(
      TaskErrorCode.invalid_input,
      'the body must be a JSON object { prompt, loomId?, sessionId? }',
    );
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).filter((k) => !['prompt', 'loomId', 'sessionId'].includes(k));
  if (unknown.length > 0)
    throw new TaskError(
      TaskErrorCode.invalid_input,
      `unknown field(s) ${unknown.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')}; expected prompt, loomId, sessionId`,
    );
  if (typeof b.prompt !== 'string' || b.prompt.trim() === '')
    throw new TaskError(
      TaskErrorCode.invalid_input,
      'prompt must be a non-empty string: what the agent should do',
    );
  if (b.prompt.length > MAX_PROMPT_CHARS)
    throw new TaskError(TaskErrorCode.invalid_input, `prompt must be at most ${MAX_PROMPT_CHARS} characters`);
  if (b.loomId !== undefined && !isLoomId(b.loomId))
    throw new TaskError(
      TaskErrorCode.invalid_loom_id,
      'loomId must be a loom id (letters, digits, then letters, digits, _ . : -, at most 128 characters), or left out',
    );
  if (b.sessionId !== undefined && typeof b.sessionId !== 'string')
    throw new TaskError(
      TaskErrorCode.invalid_input,
      'sessionId must be a string, or left out for a new session',
    );
  return {
    prompt: b.prompt,
    ...(b.loomId === undefined ? {} : { loomId: b.loomId as string }),
    ...(b.sessionId === undefined ? {} : { sessionId: b.sessionId as string }),
  };
}

/**
 * Runs one turn. Every check that can refuse — the body, the origin loom's existence, the session,
 * a turn already running in it — happens before the turn is recorded or the model is called.
 */
export async function runTask(engine: TaskEngine, body: unknown, signal?: AbortSignal): Promise<TaskResult> {
  const request = readTaskRequest(body);
  if (request.loomId !== undefined && !(await engine.loomExists(request.loomId)))
    throw new TaskError(
      TaskErrorCode.invalid_loom_id,
      `no loom ${request.loomId} exists in this instance; pick one from Looms, or leave loomId out`,
    );
  const { store } = engine;
  let session: TaskSession | undefined;
  if (request.sessionId !== undefined) {
    session = store.getSession(request.sessionId);
    if (session === undefined)
      throw new TaskError(
        TaskErrorCode.session_not_found,
        'no task session has this id; leave sessionId out to start one',
      );
    if (store.turns(session.id).some((t) => t.status === 'running'))
      throw new TaskError(TaskErrorCode.session_busy, 'a turn of this session is still running; wait for it');
  }
  const turnTools = await engine.openTools();
  try {
    const available = turnTools.tools.filter(
      (t) => engine.allowTools === undefined || engine.allowTools.includes(t.name),
    );
    // A new session records the tools configured now; an existing one keeps its recorded policy.
    session ??= store.createSession(available.map((t) => t.name));
    const policy = new Set(session.policy.tools);
    const tools = turnTools.tools.filter((t) => policy.has(t.name));
    const input: TurnInput = {
      prompt: request.prompt,
      ...(request.loomId ? { loomId: request.loomId } : {}),
    };
    const turn = store.startTurn(session.id, input);
    const runId = `task-${turn.id.slice('turn-'.length)}`;
    try {
      const text = await loop(engine, { session, turnId: turn.id, runId, input, tools, signal });
      const items = store.items(session.id);
      const result: TaskResult = {
        status: 'completed',
        sessionId: session.id,
        turnId: turn.id,
        runId,
        originLoomId: turn.originLoomId,
        text,
        pieces: piecesOfTurn(items, turn.id),
        looms: loomsOfTurn(items, turn.id),
        tools: tools.map((t) => t.name),
      };
      store.finishTurn(turn.id, 'completed', result as unknown as Record<string, unknown>);
      return result;
    } catch (error) {
      const failure =
        error instanceof TaskError ? error : new TaskError(TaskErrorCode.model_failed, modelFailure(error));
      const status = signal?.aborted ? 'cancelled' : 'failed';
      store.finishTurn(turn.id, status, { status, code: failure.code, message: failure.message });
      throw failure;
    }
  } finally {
    await turnTools.close();
  }
}

async function loop(
  engine: TaskEngine,
  t: {
    session: TaskSession;
    turnId: string;
    runId: string;
    input: TurnInput;
    tools: HarnessTool[];
    signal: AbortSignal | undefined;
  },
): Promise<string> {
  const { store } = engine;
  const run = createRun({ mode: 'enforce-explicit', id: t.runId });
  // The turn's host configuration: its own origin binds context reads, none clears the configured one.
  const context = (): AuthoringContext => ({
    run,
    slot: 'direct-command',
    signal: t.signal,
    turn: { loomId: t.input.loomId, sessionId: t.session.id },
  });
  const fn = toFunctionTools(t.tools, context);
  const add = (item: TranscriptItem) => store.append(t.session.id, item);
  add({ turn: t.turnId, role: 'context', content: contextMessage(t.input.loomId) });
  add({ turn: t.turnId, role: 'user', content: t.input.prompt });
  const modelTools = t.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
  }));
  const maxSteps = engine.maxSteps ?? DEFAULT_MAX_STEPS;
  for (let step = 0; step < maxSteps; step++) {
    const answer = await engine.model.step({
      system: SYSTEM_PROMPT,
      items: store.items(t.session.id),
      tools: modelTools,
      signal: t.signal,
    });
    add({ turn: t.turnId, role: 'assistant', content: answer.text, toolCalls: answer.toolCalls });
    if (answer.toolCalls.length === 0) return answer.text;
    for (const call of answer.toolCalls) {
      const result = await fn.call(call.name, call.arguments);
      add({
        turn: t.turnId,
        role: 'tool',
        toolCallId: call.id,
        name: call.name,
        content: resultText(result),
        result,
      });
    }
  }
  return `(stopped after ${maxSteps} model steps without a final answer)`;
}

/** A model failure in one line, without anything the provider echoed back (it may hold a key). */
function modelFailure(error: unknown): string {
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number')
    return `the model server answered HTTP ${status}; check the model name and key`;
  const name = error instanceof Error ? error.name : 'error';
  if (name === 'AbortError' || name === 'APIUserAbortError') return 'the turn was cancelled';
  return `the model server could not be reached (${name}); check ${'HARNESS_MODEL_BASE_URL'} and that the server runs`;
}
