// The fake Responses API server on its own, over real HTTP: the events of a streamed answer, a call
// to a tool offered inside a namespace, the step chosen by the conversation, a held step, a side
// request, and what it records. The real Codex CLI reading it is test/codex.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeModel,
  type PlanStep,
  RESPONSES_API,
  type ResponseItem,
  type ResponsesBody,
  type ResponsesHandedResult,
  startFakeModel,
} from '../src/index';

const PLAN: PlanStep[] = [
  { kind: 'tool_call', name: 'mcp__harness__run_command', arguments: { command: 'git.status', args: {} } },
  { kind: 'text', text: 'All clean.' },
];
/** Tools as Codex offers an MCP server's: functions inside the namespace `mcp__<server>`. */
const TOOLS = [
  { type: 'function', name: 'exec_command', parameters: { type: 'object' } },
  {
    type: 'namespace',
    name: 'mcp__harness',
    tools: [{ type: 'function', name: 'run_command', parameters: { type: 'object' } }],
  },
];
const USER: ResponseItem = {
  type: 'message',
  role: 'user',
  content: [{ type: 'input_text', text: 'status?' }],
};
const CALL: ResponseItem = {
  type: 'function_call',
  namespace: 'mcp__harness',
  name: 'run_command',
  arguments: '{"command":"git.status","args":{}}',
  call_id: 'call_fake_0',
};
const OUTPUT: ResponseItem = { type: 'function_call_output', call_id: 'call_fake_0', output: 'clean' };

/** POSTs a Responses request and reads the server-sent events of its answer. */
async function respond(
  url: string,
  body: Record<string, unknown>,
): Promise<{ type: string; [k: string]: unknown }[]> {
  const res = await fetch(`${url}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake-model', stream: true, ...body }),
  });
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const text = await res.text();
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const [event, data] = frame.split('\n');
      const parsed = JSON.parse(data?.replace(/^data: /, '') ?? '') as { type: string };
      expect(event).toBe(`event: ${parsed.type}`);
      return parsed;
    });
}

describe('the fake Responses API server', () => {
  let model: FakeModel<ResponsesBody, ResponsesHandedResult> | undefined;
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  it('streams the planned call to a namespaced tool as name and namespace apart, ending in response.completed', async () => {
    model = await startFakeModel(RESPONSES_API, { plan: PLAN, agentTool: 'mcp__harness__run_command' });
    const events = await respond(model.url, { input: [USER], tools: TOOLS });
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[4]?.item).toEqual({
      type: 'function_call',
      id: 'fc_fake_0',
      call_id: 'call_fake_0',
      namespace: 'mcp__harness',
      name: 'run_command',
      arguments: '{"command":"git.status","args":{}}',
      status: 'completed',
    });
    expect(events[5]).toMatchObject({ response: { status: 'completed', usage: { total_tokens: 2 } } });
  });

  it('answers the step whose index is the number of items the model wrote, and pairs each output with its call', async () => {
    model = await startFakeModel(RESPONSES_API, { plan: PLAN, agentTool: 'mcp__harness__run_command' });
    const events = await respond(model.url, { input: [USER, CALL, OUTPUT], tools: TOOLS });
    expect(events.map((e) => e.type)).toContain('response.output_text.delta');
    expect(events.find((e) => e.type === 'response.output_item.done')?.item).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'All clean.' }],
    });
    expect(model.requests.map((r) => r.step)).toEqual([1]);
    expect(model.handedResults()).toEqual([
      {
        step: 0,
        name: 'mcp__harness__run_command',
        arguments: { command: 'git.status', args: {} },
        item: OUTPUT,
        text: 'clean',
      },
    ]);
  });

  it('holds a step until released, and answers a request without the agent tool as a side request', async () => {
    model = await startFakeModel(RESPONSES_API, { plan: PLAN, agentTool: 'mcp__harness__run_command' });
    const held = model.hold(1);
    let answered = false;
    const answer = respond(model.url, { input: [USER, CALL, OUTPUT], tools: TOOLS }).then((events) => {
      answered = true;
      return events;
    });
    const request = await held.arrived;
    expect(request.step).toBe(1);
    const side = await respond(model.url, { input: [USER] });
    expect(side.find((e) => e.type === 'response.output_item.done')?.item).toMatchObject({
      content: [{ text: 'ok' }],
    });
    expect(answered).toBe(false);
    held.release();
    expect((await answer).at(-1)?.type).toBe('response.completed');
    expect(model.requests.map((r) => r.step)).toEqual([1, undefined]);
    expect(model.unknown).toEqual([]);
  });

  it('answers a path it does not know with 404 and records it', async () => {
    model = await startFakeModel(RESPONSES_API, { plan: PLAN, agentTool: 'mcp__harness__run_command' });
    const res = await fetch(`${model.url}/models`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { type: 'invalid_request_error', message: 'the fake model has no /v1/models' },
    });
    expect(model.unknown).toEqual(['GET /v1/models']);
  });
});
