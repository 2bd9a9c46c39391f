// The wire format of a FAKE model server speaking the OpenAI Responses API as a client such as the
// Codex CLI calls it (POST /v1/responses, streamed as server-sent events); the server itself (plan,
// recording, holds) is fake-server.ts. The events are those Codex's stream reader acts on
// (openai/codex, codex-rs/codex-api/src/sse/responses.rs): `response.created`,
// `response.output_item.added`, `response.output_item.done` carrying the whole item,
// `response.output_text.delta`, and `response.completed` with the response id; the argument deltas
// of a function call are sent too, as the Responses API sends them, though Codex reads the arguments
// from the finished item. A tool the client offers inside a namespace (Codex puts an MCP server's
// tools in the namespace `mcp__<server>`) has the qualified name `<namespace>__<tool>`, and the fake
// model calls it as the Responses API does, with `name` and `namespace` apart.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { HandedResult, PlanStep, TypedObject, WireFormat } from './fake-server';
import { eventStream, joinedText } from './fake-server';

/** An item of a Responses request's `input` or of a response's output. */
export type ResponseItem = TypedObject;

/** A tool the client offers: a function, or a namespace holding functions. */
export interface OfferedTool {
  type: string;
  name?: string;
  tools?: OfferedTool[];
  [key: string]: unknown;
}

/** The parts of a Responses request body the fake model reads. */
export interface ResponsesBody {
  model?: string;
  stream?: boolean;
  instructions?: string;
  input: ResponseItem[];
  tools?: OfferedTool[];
  [key: string]: unknown;
}

/** A tool result the client handed its model, with its `function_call_output` item exactly as sent. */
export type ResponsesHandedResult = HandedResult & { item: ResponseItem };

const SEPARATOR = '__';

/** Every tool a request offers, by qualified name: `<namespace>__<tool>` inside a namespace. */
export function offeredTools(
  tools: readonly OfferedTool[] | undefined,
): Map<string, { namespace?: string; name: string }> {
  const out = new Map<string, { namespace?: string; name: string }>();
  for (const tool of tools ?? []) {
    if (tool.type === 'namespace' && tool.name !== undefined) {
      for (const inner of tool.tools ?? []) {
        if (inner.name !== undefined) {
          out.set(`${tool.name}${SEPARATOR}${inner.name}`, { namespace: tool.name, name: inner.name });
        }
      }
    } else if (tool.name !== undefined) out.set(tool.name, { name: tool.name });
  }
  return out;
}

/** The output item of a planned step, as the model would write it. */
function itemOf(step: PlanStep, index: number, body: ResponsesBody): ResponseItem {
  if (step.kind === 'text') {
    return {
      type: 'message',
      id: `msg_fake_${index}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: step.text, annotations: [] }],
    };
  }
  const offered = offeredTools(body.tools).get(step.name) ?? { name: step.name };
  return {
    type: 'function_call',
    id: `fc_fake_${index}`,
    call_id: `call_fake_${index}`,
    ...(offered.namespace === undefined ? {} : { namespace: offered.namespace }),
    name: offered.name,
    arguments: JSON.stringify(step.arguments),
    status: 'completed',
  };
}

/** Writes the events that stream `item` from added to done, as the Responses API does. */
function streamItem(send: (data: TypedObject) => void, item: ResponseItem): void {
  const at = { output_index: 0, item_id: item.id };
  if (item.type === 'function_call') {
    const added = { ...item, arguments: '', status: 'in_progress' };
    send({ type: 'response.output_item.added', output_index: 0, item: added });
    send({ type: 'response.function_call_arguments.delta', ...at, delta: item.arguments });
    send({ type: 'response.function_call_arguments.done', ...at, arguments: item.arguments });
  } else {
    const added = { ...item, content: [], status: 'in_progress' };
    send({ type: 'response.output_item.added', output_index: 0, item: added });
    const text = (item.content as { text: string }[])[0]?.text ?? '';
    send({ type: 'response.output_text.delta', ...at, content_index: 0, delta: text });
    send({ type: 'response.output_text.done', ...at, content_index: 0, text });
  }
  send({ type: 'response.output_item.done', output_index: 0, item });
}

/** Streams `item` as the one output of a response, event by event, as the Responses API does. */
function streamResponse(res: ServerResponse, model: string, item: ResponseItem): void {
  const send = eventStream(res);
  const response = {
    id: `resp_fake_${randomUUID().replaceAll('-', '')}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model,
    status: 'in_progress',
    output: [],
  };
  send({ type: 'response.created', response });
  streamItem(send, item);
  const usage = {
    input_tokens: 1,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 1,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 2,
  };
  send({
    type: 'response.completed',
    response: { ...response, status: 'completed', output: [item], usage },
  });
  res.end();
}

function parseArguments(text: unknown): unknown {
  try {
    return JSON.parse(String(text));
  } catch {
    return text;
  }
}

/**
 * Every function call output of a request body, matched to the function call it answers (its step is
 * read from the id the fake model gave the call, `call_fake_<step>`).
 */
export function callOutputsOf(body: ResponsesBody): ResponsesHandedResult[] {
  const calls = new Map<string, { name: string; arguments: unknown }>();
  const out: ResponsesHandedResult[] = [];
  for (const item of body.input) {
    if (item.type === 'function_call') {
      const name =
        item.namespace === undefined
          ? String(item.name)
          : `${String(item.namespace)}${SEPARATOR}${String(item.name)}`;
      calls.set(String(item.call_id), { name, arguments: parseArguments(item.arguments) });
    }
    if (item.type !== 'function_call_output') continue;
    const id = String(item.call_id);
    const call = calls.get(id);
    const step = Number(/^call_fake_(\d+)$/.exec(id)?.[1] ?? -1);
    out.push({
      step,
      name: call?.name ?? '?',
      arguments: call?.arguments,
      item,
      text: joinedText(item.output),
    });
  }
  return out;
}

/** The Responses API: a step answers a conversation holding that many items the model wrote. */
export const RESPONSES_API: WireFormat<ResponsesBody, ResponsesHandedResult> = {
  basePath: '/v1',
  endpoint: '/v1/responses',
  offers: (body, tool) => offeredTools(body.tools).has(tool),
  turnsOf: (body) =>
    body.input.filter((i) => i.type === 'function_call' || (i.type === 'message' && i.role === 'assistant'))
      .length,
  answer: (res, body, step, index) =>
    streamResponse(res, body.model ?? 'fake-model', itemOf(step, index, body)),
  resultsOf: callOutputsOf,
  errorBody: (status, message) => ({
    error: { type: status === 404 ? 'invalid_request_error' : 'server_error', message },
  }),
};
