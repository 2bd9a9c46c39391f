// A FAKE model server: it speaks the Anthropic Messages API as a client such as Claude Code calls it
// (POST /v1/messages, streamed as server-sent events or answered whole), but it thinks nothing. It
// answers each request of the agent's loop with the next step of a fixed plan (a tool_use block, or
// the final text) and records every request body it receives, so a test reads exactly what the
// client handed its model. The event shapes follow the Messages streaming format (message_start,
// content_block_start, content_block_delta with text_delta or input_json_delta, content_block_stop,
// message_delta with the stop reason, message_stop), as the public TypeScript SDK's fixtures show.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One step of the fake model's plan: a tool call, or the text that ends the turn. */
export type PlanStep = { kind: 'tool_use'; name: string; input: unknown } | { kind: 'text'; text: string };

/** A request the fake model received on POST /v1/messages, with the plan step it was answered with. */
export interface RecordedRequest {
  /** The request body as parsed JSON. */
  body: MessagesBody;
  /** The plan step answered, or undefined for a side request (one that does not offer the agent's tools). */
  step: number | undefined;
}

/** The parts of a Messages request body the fake model reads. */
export interface MessagesBody {
  model?: string;
  stream?: boolean;
  messages: { role: string; content: string | ContentBlock[] }[];
  tools?: { name: string }[];
  [key: string]: unknown;
}

/** A content block of a message, as sent by the client. */
export interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

/** What the client handed its model as one tool's result: the tool_result block and the call it answers. */
export interface HandedResult {
  /** The plan step whose tool_use this result answers. */
  step: number;
  /** The tool the model called. */
  name: string;
  /** The arguments the model called it with. */
  input: unknown;
  /** The tool_result block exactly as the client sent it. */
  block: ContentBlock;
  /** The block's content as one string: its text parts joined by a newline. */
  text: string;
}

/** Options of {@link startFakeModel}. */
export interface FakeModelOptions {
  /** The plan, answered in order: step n answers a conversation holding n assistant turns. */
  plan: readonly PlanStep[];
  /** A request whose `tools` hold this name belongs to the agent's loop; any other is a side request. */
  agentTool: string;
}

/** A running fake model server. */
export interface FakeModel {
  /** The base URL to give the client (ANTHROPIC_BASE_URL). */
  url: string;
  /** Every POST /v1/messages request, in the order received. */
  requests: RecordedRequest[];
  /** Requests to paths the fake model does not know, as "METHOD /path". */
  unknown: string[];
  /**
   * Holds the answer to plan step `step`: `arrived` resolves with the request once it comes, and the
   * answer is sent only after `release()`. Call it before the client can reach that step.
   */
  hold: (step: number) => { arrived: Promise<RecordedRequest>; release: () => void };
  /** Every tool_result in the last request of the agent's loop, matched to the tool_use it answers. */
  handedResults: () => HandedResult[];
  close: () => Promise<void>;
}

const MODEL_ID = 'claude-fake-model';

/** The number of assistant turns in a conversation: the index of the plan step that answers it. */
function stepOf(body: MessagesBody): number {
  return body.messages.filter((m) => m.role === 'assistant').length;
}

/** The content blocks of a planned step, as the model would write them. */
function blocksOf(step: PlanStep | undefined, index: number): ContentBlock[] {
  if (step === undefined) return [{ type: 'text', text: `(the fake model's plan has no step ${index})` }];
  if (step.kind === 'text') return [{ type: 'text', text: step.text }];
  return [{ type: 'tool_use', id: `toolu_fake_${index}`, name: step.name, input: step.input }];
}

function stopReason(blocks: ContentBlock[]): string {
  return blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

function usage(): Record<string, number> {
  return { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

/** One server-sent event: its name and its JSON data, whose `type` repeats the name. */
function sse(res: ServerResponse, data: { type: string; [key: string]: unknown }): void {
  res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Streams `blocks` as one message, event by event, as the Messages API does with `stream: true`. */
function streamMessage(res: ServerResponse, id: string, blocks: ContentBlock[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    model: MODEL_ID,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: usage(),
  };
  sse(res, { type: 'message_start', message });
  blocks.forEach((block, index) => {
    if (block.type === 'tool_use') {
      sse(res, { type: 'content_block_start', index, content_block: { ...block, input: {} } });
      const delta = { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
      sse(res, { type: 'content_block_delta', index, delta });
    } else {
      sse(res, { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      sse(res, { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    }
    sse(res, { type: 'content_block_stop', index });
  });
  const delta = { stop_reason: stopReason(blocks), stop_sequence: null };
  sse(res, { type: 'message_delta', delta, usage: { output_tokens: 1 } });
  sse(res, { type: 'message_stop' });
  res.end();
}

/** Answers `blocks` as one whole message, as the Messages API does without `stream`. */
function wholeMessage(res: ServerResponse, id: string, blocks: ContentBlock[]): void {
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    model: MODEL_ID,
    content: blocks,
    stop_reason: stopReason(blocks),
    stop_sequence: null,
    usage: usage(),
  };
  json(res, 200, message);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The text of a tool_result block's content: a string as it is, else its text parts joined. */
export function resultText(block: ContentBlock): string {
  const content = block.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/**
 * Every tool_result block of a request body, matched to the tool_use block it answers (its step is
 * read from the id the fake model gave the call, `toolu_fake_<step>`).
 */
export function toolResultsOf(body: MessagesBody): HandedResult[] {
  const calls = new Map<string, { name: string; input: unknown }>();
  const out: HandedResult[] = [];
  for (const message of body.messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use')
        calls.set(String(block.id), { name: String(block.name), input: block.input });
      if (block.type !== 'tool_result') continue;
      const id = String(block.tool_use_id);
      const call = calls.get(id);
      out.push({
        step: Number(/^toolu_fake_(\d+)$/.exec(id)?.[1] ?? -1),
        name: call?.name ?? '?',
        input: call?.input,
        block,
        text: resultText(block),
      });
    }
  }
  return out;
}

/** Starts the fake model on 127.0.0.1 at a free port. */
export async function startFakeModel(options: FakeModelOptions): Promise<FakeModel> {
  const requests: RecordedRequest[] = [];
  const unknown: string[] = [];
  const holds = new Map<number, { arrived: (r: RecordedRequest) => void; released: Promise<void> }>();

  const onMessages = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = JSON.parse(await readBody(req)) as MessagesBody;
    const agent = body.tools?.some((t) => t.name === options.agentTool) ?? false;
    const step = agent ? stepOf(body) : undefined;
    const recorded: RecordedRequest = { body, step };
    requests.push(recorded);
    const held = step === undefined ? undefined : holds.get(step);
    if (held) {
      held.arrived(recorded);
      await held.released;
    }
    // A side request (a title, a summary) gets a short text; the agent's loop gets its plan.
    const blocks = step === undefined ? [{ type: 'text', text: 'ok' }] : blocksOf(options.plan[step], step);
    const id = `msg_fake_${randomUUID().replaceAll('-', '')}`;
    if (body.stream) streamMessage(res, id, blocks);
    else wholeMessage(res, id, blocks);
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method === 'POST' && path === '/v1/messages') return onMessages(req, res);
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      await readBody(req);
      return json(res, 200, { input_tokens: 1 });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      const model = {
        type: 'model',
        id: MODEL_ID,
        display_name: 'Fake model',
        created_at: '2026-01-01T00:00:00Z',
      };
      return json(res, 200, { data: [model], has_more: false, first_id: MODEL_ID, last_id: MODEL_ID });
    }
    unknown.push(`${req.method} ${path}`);
    await readBody(req);
    json(res, 404, {
      type: 'error',
      error: { type: 'not_found_error', message: `the fake model has no ${path}` },
    });
  };

  const server: Server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      unknown.push(`ERROR ${req.method} ${req.url}: ${String(error)}`);
      if (!res.headersSent)
        json(res, 500, { type: 'error', error: { type: 'api_error', message: String(error) } });
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    unknown,
    hold: (step) => {
      let arrived!: (r: RecordedRequest) => void;
      let release!: () => void;
      const arrival = new Promise<RecordedRequest>((resolve) => {
        arrived = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      holds.set(step, { arrived, released });
      return { arrived: arrival, release };
    },
    handedResults: () => {
      const last = requests.filter((r) => r.step !== undefined).at(-1);
      return last ? toolResultsOf(last.body) : [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
