// The wire format of a FAKE model server speaking the Anthropic Messages API as a client such as
// Claude Code calls it (POST /v1/messages, streamed as server-sent events or answered whole); the
// server itself (plan, recording, holds) is fake-server.ts. The event shapes follow the Messages
// streaming format (message_start, content_block_start, content_block_delta with text_delta or
// input_json_delta, content_block_stop, message_delta with the stop reason, message_stop), as the
// public TypeScript SDK's fixtures show.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { HandedResult, PlanStep, TypedObject, WireFormat } from './fake-server';
import { eventStream, joinedText, writeJson } from './fake-server';

/** The parts of a Messages request body the fake model reads. */
export interface MessagesBody {
  model?: string;
  stream?: boolean;
  messages: { role: string; content: string | ContentBlock[] }[];
  tools?: { name: string }[];
  [key: string]: unknown;
}

/** A content block of a message, as sent by the client. */
export type ContentBlock = TypedObject;

/** A tool result the client handed its model, with its tool_result block exactly as sent. */
export type MessagesHandedResult = HandedResult & { block: ContentBlock };

const MODEL_ID = 'claude-fake-model';

/** The content blocks of a planned step, as the model would write them. */
function blocksOf(step: PlanStep, index: number): ContentBlock[] {
  if (step.kind === 'text') return [{ type: 'text', text: step.text }];
  return [{ type: 'tool_use', id: `toolu_fake_${index}`, name: step.name, input: step.arguments }];
}

function stopReason(blocks: ContentBlock[]): string {
  return blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

/** A message of `blocks` as the Messages API writes it, before (`streamed`) or after its content. */
function message(blocks: ContentBlock[], streamed: boolean): Record<string, unknown> {
  return {
    id: `msg_fake_${randomUUID().replaceAll('-', '')}`,
    type: 'message',
    role: 'assistant',
    model: MODEL_ID,
    content: streamed ? [] : blocks,
    stop_reason: streamed ? null : stopReason(blocks),
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

/** Streams `blocks` as one message, event by event, as the Messages API does with `stream: true`. */
function streamMessage(res: ServerResponse, blocks: ContentBlock[]): void {
  const send = eventStream(res);
  send({ type: 'message_start', message: message(blocks, true) });
  blocks.forEach((block, index) => {
    if (block.type === 'tool_use') {
      send({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      const delta = { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
      send({ type: 'content_block_delta', index, delta });
    } else {
      send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      send({
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      });
    }
    send({ type: 'content_block_stop', index });
  });
  const delta = { stop_reason: stopReason(blocks), stop_sequence: null };
  send({ type: 'message_delta', delta, usage: { output_tokens: 1 } });
  send({ type: 'message_stop' });
  res.end();
}

/**
 * Every tool_result block of a request body, matched to the tool_use block it answers (its step is
 * read from the id the fake model gave the call, `toolu_fake_<step>`).
 */
export function toolResultsOf(body: MessagesBody): MessagesHandedResult[] {
  const calls = new Map<string, { name: string; arguments: unknown }>();
  const out: MessagesHandedResult[] = [];
  for (const message of body.messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use')
        calls.set(String(block.id), { name: String(block.name), arguments: block.input });
      if (block.type !== 'tool_result') continue;
      const id = String(block.tool_use_id);
      const call = calls.get(id);
      out.push({
        step: Number(/^toolu_fake_(\d+)$/.exec(id)?.[1] ?? -1),
        name: call?.name ?? '?',
        arguments: call?.arguments,
        block,
        text: joinedText(block.content),
      });
    }
  }
  return out;
}

const MODEL_LIST = {
  data: [{ type: 'model', id: MODEL_ID, display_name: 'Fake model', created_at: '2026-01-01T00:00:00Z' }],
  has_more: false,
  first_id: MODEL_ID,
  last_id: MODEL_ID,
};

/** The Messages API: a step answers a conversation holding that many assistant turns. */
export const MESSAGES_API: WireFormat<MessagesBody, MessagesHandedResult> = {
  basePath: '',
  endpoint: '/v1/messages',
  offers: (body, tool) => body.tools?.some((t) => t.name === tool) ?? false,
  turnsOf: (body) => body.messages.filter((m) => m.role === 'assistant').length,
  answer: (res, body, step, index) => {
    const blocks = blocksOf(step, index);
    if (body.stream) streamMessage(res, blocks);
    else writeJson(res, 200, message(blocks, false));
  },
  resultsOf: toolResultsOf,
  fixedAnswers: { 'POST /v1/messages/count_tokens': { input_tokens: 1 }, 'GET /v1/models': MODEL_LIST },
  errorBody: (status, message) => ({
    type: 'error',
    error: { type: status === 404 ? 'not_found_error' : 'api_error', message },
  }),
};
