// A FAKE model server: it speaks the OpenAI Responses API as a client such as the Codex CLI calls it
// (POST /v1/responses, streamed as server-sent events), but it thinks nothing. It answers each
// request of the agent's loop with the next step of a fixed plan (a function call, or the final
// text) and records every request body it receives, so a test reads exactly what the client handed
// its model. The events are those Codex's stream reader acts on (openai/codex,
// codex-rs/codex-api/src/sse/responses.rs): `response.created`, `response.output_item.added`,
// `response.output_item.done` carrying the whole item, `response.output_text.delta`, and
// `response.completed` with the response id; the argument deltas of a function call are sent too, as
// the Responses API sends them, though Codex reads the arguments from the finished item.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One step of the fake model's plan: a function call, or the text that ends the turn. `name` is
 * the tool's qualified name: a tool the client offers inside a namespace (Codex puts an MCP server's
 * tools in the namespace `mcp__<server>`) is named `<namespace>__<tool>`, and the fake model calls
 * it as the Responses API does, with `name` and `namespace` apart.
 */
export type PlanStep =
  | { kind: 'tool_call'; name: string; arguments: unknown }
  | { kind: 'text'; text: string };

/** An item of a Responses request's `input` or of a response's output. */
export interface ResponseItem {
  type: string;
  [key: string]: unknown;
}

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

/** A request the fake model received on POST /v1/responses, with the plan step it was answered with. */
export interface RecordedRequest {
  /** The request body as parsed JSON. */
  body: ResponsesBody;
  /** The plan step answered, or undefined for a side request (one that does not offer the agent's tool). */
  step: number | undefined;
}

/** What the client handed its model as one tool's result: the output item and the call it answers. */
export interface HandedResult {
  /** The plan step whose function call this result answers. */
  step: number;
  /** The qualified name of the tool the model called. */
  name: string;
  /** The arguments the model called it with, parsed. */
  arguments: unknown;
  /** The `function_call_output` item exactly as the client sent it. */
  item: ResponseItem;
  /** Its `output` as one string: a string as it is, else its text parts joined by a newline. */
  text: string;
}

/** Options of {@link startFakeModel}. */
export interface FakeModelOptions {
  /** The plan, answered in order: step n answers a conversation holding n items the model wrote. */
  plan: readonly PlanStep[];
  /** A request offering a tool of this qualified name belongs to the agent's loop; any other is a side request. */
  agentTool: string;
}

/** A running fake model server. */
export interface FakeModel {
  /** The base URL to give the client, ending in /v1. */
  url: string;
  /** Every POST /v1/responses request, in the order received. */
  requests: RecordedRequest[];
  /** Requests to paths the fake model does not know, as "METHOD /path", and answers it failed to send. */
  unknown: string[];
  /**
   * Holds the answer to plan step `step`: `arrived` resolves with the request once it comes, and the
   * answer is sent only after `release()`. Call it before the client can reach that step.
   */
  hold: (step: number) => { arrived: Promise<RecordedRequest>; release: () => void };
  /** Every function call output the client handed the model, matched to the call it answers. */
  handedResults: () => HandedResult[];
  close: () => Promise<void>;
}

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

/** The number of items the model wrote in a conversation: the index of the plan step that answers it. */
function stepOf(body: ResponsesBody): number {
  return body.input.filter(
    (i) => i.type === 'function_call' || (i.type === 'message' && i.role === 'assistant'),
  ).length;
}

/** The output item of a planned step, as the model would write it. */
function itemOf(step: PlanStep | undefined, index: number, body: ResponsesBody): ResponseItem {
  if (step === undefined || step.kind === 'text') {
    const text = step?.text ?? `(the fake model's plan has no step ${index})`;
    return {
      type: 'message',
      id: `msg_fake_${index}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
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

/** One server-sent event: its name and its JSON data, whose `type` repeats the name. */
function sse(res: ServerResponse, data: { type: string; [key: string]: unknown }): void {
  res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Streams `item` as the one output of a response, event by event, as the Responses API does. */
function streamResponse(res: ServerResponse, id: string, model: string, item: ResponseItem): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const response = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model,
    status: 'in_progress',
    output: [],
  };
  sse(res, { type: 'response.created', response });
  const at = { output_index: 0, item_id: item.id };
  if (item.type === 'function_call') {
    sse(res, {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, arguments: '', status: 'in_progress' },
    });
    sse(res, { type: 'response.function_call_arguments.delta', ...at, delta: item.arguments });
    sse(res, { type: 'response.function_call_arguments.done', ...at, arguments: item.arguments });
  } else {
    sse(res, {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, content: [], status: 'in_progress' },
    });
    const text = (item.content as { text: string }[])[0]?.text ?? '';
    sse(res, { type: 'response.output_text.delta', ...at, content_index: 0, delta: text });
    sse(res, { type: 'response.output_text.done', ...at, content_index: 0, text });
  }
  sse(res, { type: 'response.output_item.done', output_index: 0, item });
  const usage = {
    input_tokens: 1,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 1,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 2,
  };
  sse(res, {
    type: 'response.completed',
    response: { ...response, status: 'completed', output: [item], usage },
  });
  res.end();
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

/** The text of a function call output: a string as it is, else its text parts joined. */
export function outputText(item: ResponseItem): string {
  const output = item.output;
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) return '';
  return output
    .filter((part): part is { type: string; text: string } => typeof part?.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

function parseArguments(text: unknown): unknown {
  try {
    return JSON.parse(String(text));
  } catch {
    return text;
  }
}

/** Pairs every function call output of the last agent request with the function call it answers. */
function handedResults(requests: RecordedRequest[]): HandedResult[] {
  const last = requests.filter((r) => r.step !== undefined).at(-1);
  if (!last) return [];
  const calls = new Map<string, { name: string; arguments: unknown }>();
  const out: HandedResult[] = [];
  for (const item of last.body.input) {
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
    out.push({ step, name: call?.name ?? '?', arguments: call?.arguments, item, text: outputText(item) });
  }
  return out;
}

/** Starts the fake model on 127.0.0.1 at a free port. */
export async function startFakeModel(options: FakeModelOptions): Promise<FakeModel> {
  const requests: RecordedRequest[] = [];
  const unknown: string[] = [];
  const holds = new Map<number, { arrived: (r: RecordedRequest) => void; released: Promise<void> }>();

  const onResponses = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.headers['content-encoding'] !== undefined) {
      // The fake model reads plain JSON only; a compressed body is named rather than misread.
      unknown.push(`POST /v1/responses with content-encoding ${req.headers['content-encoding']}`);
    }
    const body = JSON.parse(await readBody(req)) as ResponsesBody;
    const agent = offeredTools(body.tools).has(options.agentTool);
    const step = agent ? stepOf(body) : undefined;
    const recorded: RecordedRequest = { body, step };
    requests.push(recorded);
    const held = step === undefined ? undefined : holds.get(step);
    if (held) {
      held.arrived(recorded);
      await held.released;
    }
    // A side request (a title, a summary) gets a short text; the agent's loop gets its plan.
    const plan: PlanStep | undefined = step === undefined ? { kind: 'text', text: 'ok' } : options.plan[step];
    const item = itemOf(plan, step ?? 0, body);
    streamResponse(res, `resp_fake_${randomUUID().replaceAll('-', '')}`, body.model ?? 'fake-model', item);
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method === 'POST' && path === '/v1/responses') return onResponses(req, res);
    unknown.push(`${req.method} ${path}`);
    await readBody(req);
    json(res, 404, { error: { type: 'invalid_request_error', message: `the fake model has no ${path}` } });
  };

  const server: Server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      unknown.push(`ERROR ${req.method} ${req.url}: ${String(error)}`);
      if (!res.headersSent) json(res, 500, { error: { type: 'server_error', message: String(error) } });
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
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
    handedResults: () => handedResults(requests),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
