// The Anthropic provider through the real `@anthropic-ai/sdk` client against a FAKE Messages API on
// loopback (no model runs here): the transcript and tools go out in Anthropic's shape, and the
// answer's text and tool_use blocks come back as one step.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatModel } from '../src/server/tasks/model';

describe('the Anthropic provider', () => {
  const seen: { headers: Record<string, unknown>; body: Record<string, unknown> }[] = [];
  let url = '';
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    req.on('end', () => {
      seen.push({ headers: req.headers, body: JSON.parse(text) as Record<string, unknown> });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'msg_fake',
          type: 'message',
          role: 'assistant',
          model: 'fake-anthropic-model',
          stop_reason: 'tool_use',
          content: [
            { type: 'text', text: 'Composing.' },
            { type: 'tool_use', id: 'toolu_2', name: 'loom_compose', input: { request_id: 'r2' } },
          ],
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      );
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the transcript as alternating messages with tool_result blocks, and reads text and tool_use back', async () => {
    const model = await createChatModel({
      provider: 'anthropic',
      model: 'fake-anthropic-model',
      baseUrl: url,
      apiKey: 'k-test',
    });
    const answer = await model.step({
      system: 'the system prompt',
      tools: [{ name: 'loom_compose', description: 'compose', parameters: { type: 'object' } }],
      items: [
        { turn: 't1', role: 'context', content: 'Console context for this turn: no origin loom.' },
        { turn: 't1', role: 'user', content: 'Make a loom.' },
        {
          turn: 't1',
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'toolu_1', name: 'loom_compose', arguments: '{"request_id":"r1"}' }],
        },
        { turn: 't1', role: 'tool', toolCallId: 'toolu_1', name: 'loom_compose', content: 'ok', result: {} },
      ],
    });
    expect(answer).toEqual({
      text: 'Composing.',
      toolCalls: [{ id: 'toolu_2', name: 'loom_compose', arguments: '{"request_id":"r2"}' }],
    });
    const sent = seen[0]?.body ?? {};
    expect(sent.system).toBe('the system prompt');
    expect(sent.tools).toEqual([
      { name: 'loom_compose', description: 'compose', input_schema: { type: 'object' } },
    ]);
    expect(sent.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Console context for this turn: no origin loom.' },
          { type: 'text', text: 'Make a loom.' },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'loom_compose', input: { request_id: 'r1' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
    ]);
    const headers = seen[0]?.headers ?? {};
    expect([headers['x-api-key'], headers.authorization]).toContainEqual(expect.stringContaining('k-test'));
  });
});
