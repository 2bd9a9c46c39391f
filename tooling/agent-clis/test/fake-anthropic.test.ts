// The fake model server, read by the real `@anthropic-ai/sdk` client: its streamed and whole answers
// parse as the Messages API's, it follows its plan by the conversation's turns, holds a step until
// released, and records what it was handed.
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeModel,
  MESSAGES_API,
  type MessagesBody,
  type MessagesHandedResult,
  type PlanStep,
  startFakeModel,
  toolResultsOf,
} from '../src/index';

const PLAN: PlanStep[] = [
  { kind: 'tool_call', name: 'mcp__harness__run_command', arguments: { command: 'git.status', args: {} } },
  { kind: 'text', text: 'All clean.' },
];
const TOOLS = [{ name: 'mcp__harness__run_command', input_schema: { type: 'object' as const } }];

/** The conversation after the model's first call and the tool's result. */
const AFTER_CALL: Anthropic.MessageParam[] = [
  { role: 'user', content: 'status?' },
  {
    role: 'assistant',
    content: [
      {
        type: 'tool_use',
        id: 'toolu_fake_0',
        name: 'mcp__harness__run_command',
        input: { command: 'git.status', args: {} },
      },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_fake_0', content: [{ type: 'text', text: 'clean' }] },
    ],
  },
];

describe('the fake model server', () => {
  let model: FakeModel<MessagesBody, MessagesHandedResult> | undefined;
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });
  const client = (url: string) => new Anthropic({ baseURL: url, apiKey: 'sk-ant-fake', maxRetries: 0 });

  it('streams the planned tool_use as server-sent events that the real SDK assembles into the same block', async () => {
    model = await startFakeModel(MESSAGES_API, { plan: PLAN, agentTool: 'mcp__harness__run_command' });
    const events: string[] = [];
    const stream = client(model.url).messages.stream({
      model: 'any',
      max_tokens: 100,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'status?' }],
    });
    stream.on('streamEvent', (event) => events.push(event.type));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      {
        type: 'tool_use',
        id: 'toolu_fake_0',
        name: 'mcp__harness__run_command',
        input: { command: 'git.status', args: {} },
      },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(events).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  it('answers the step whose index is the number of assistant turns, here the final text, whole when not streamed', async () => {
    model = await startFakeModel(MESSAGES_API, { plan: PLAN, agentTool: 'mcp__harness__run_command' });
    const message = await client(model.url).messages.create({
      model: 'any',
      max_tokens: 100,
      tools: TOOLS,
      messages: AFTER_CALL,
    });
    expect(message.content).toEqual([{ type: 'text', text: 'All clean.' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(model.requests.map((r) => r.step)).toEqual([1]);
  });

  it('records the tool_result it was handed, matched to the call it answers', async () => {
    model = await startFakeModel(MESSAGES_API, { plan: PLAN, agentTool: 'mcp__harness__run_command' });
    await client(model.url).messages.create({
      model: 'any',
      max_tokens: 100,
      tools: TOOLS,
      messages: AFTER_CALL,
    });
    expect(model.handedResults()).toEqual([
      {
        step: 0,
        name: 'mcp__harness__run_command',
        arguments: { command: 'git.status', args: {} },
        block: {
          type: 'tool_result',
          tool_use_id: 'toolu_fake_0',
          content: [{ type: 'text', text: 'clean' }],
        },
        text: 'clean',
      },
    ]);
    expect(toolResultsOf(model.requests[0]!.body)).toEqual(model.handedResults());
  });

  it('answers a request without the agent tool as a side request: text, and no plan step used', async () => {
    model = await startFakeModel(MESSAGES_API, { plan: PLAN, agentTool: 'mcp__harness__run_command' });
    const message = await client(model.url).messages.create({
      model: 'any',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Give this session a title.' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(model.requests.map((r) => r.step)).toEqual([undefined]);
  });

  it('holds a step until released, with the request already recorded when it arrives', async () => {
    model = await startFakeModel(MESSAGES_API, { plan: PLAN, agentTool: 'mcp__harness__run_command' });
    const held = model.hold(1);
    let answered = false;
    const answer = client(model.url)
      .messages.create({ model: 'any', max_tokens: 100, tools: TOOLS, messages: AFTER_CALL })
      .then((m) => {
        answered = true;
        return m;
      });
    const request = await held.arrived;
    expect(request.step).toBe(1);
    expect(answered).toBe(false);
    held.release();
    expect((await answer).content).toEqual([{ type: 'text', text: 'All clean.' }]);
  });

  it('answers count_tokens and the model list, and logs any other path', async () => {
    model = await startFakeModel(MESSAGES_API, { plan: PLAN, agentTool: 'mcp__harness__run_command' });
    const count = await client(model.url).messages.countTokens({
      model: 'any',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(count.input_tokens).toBe(1);
    const models = await client(model.url).models.list();
    expect(models.data.map((m) => m.id)).toEqual(['claude-fake-model']);
    const other = await fetch(`${model.url}/v1/files`, { method: 'GET' });
    expect(other.status).toBe(404);
    expect(model.unknown).toEqual(['GET /v1/files']);
  });
});
