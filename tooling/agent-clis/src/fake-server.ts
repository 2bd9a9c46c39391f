// The HTTP side of a FAKE model server, whatever API it speaks: it answers each request of the agent's
// loop with the next step of a fixed plan, records every request body it receives (so a test reads
// exactly what the client handed its model), holds a step until the test releases it, and records
// every path it does not know. A wire format (fake-anthropic.ts, fake-openai.ts) says only what is
// the API's own: how a request's plan step is read and how an answer is written.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One step of the fake model's plan: a call of a tool, or the text that ends the turn. `name` is the
 * qualified name the client gives the tool, as a request offers it.
 */
export type PlanStep =
  | { kind: 'tool_call'; name: string; arguments: unknown }
  | { kind: 'text'; text: string };

/** A request the fake model received on its endpoint, with the plan step it was answered with. */
export interface RecordedRequest<Body> {
  /** The request body as parsed JSON. */
  body: Body;
  /** The plan step answered, or undefined for a side request (one that does not offer the agent's tool). */
  step: number | undefined;
}

/** A JSON object tagged by its `type`: a content block, an input item, a server-sent event. */
export interface TypedObject {
  type: string;
  [key: string]: unknown;
}

/** What the client handed its model as one tool's result, matched to the call it answers. */
export interface HandedResult {
  /** The plan step whose call this result answers (-1 for a call the fake model did not make). */
  step: number;
  /** The qualified name of the tool the model called ('?' for a call the fake model did not make). */
  name: string;
  /** The arguments the model called it with, parsed. */
  arguments: unknown;
  /** The result as one string: a string as it is, else its text parts joined by a newline. */
  text: string;
}

/** Options of a fake model server. */
export interface FakeModelOptions {
  /** The plan, answered in order: step n answers a conversation in which the model wrote n turns. */
  plan: readonly PlanStep[];
  /** A request offering a tool of this qualified name belongs to the agent's loop; any other is a side request. */
  agentTool: string;
}

/** A step held back: `arrived` resolves with its request once it comes; the answer goes after `release()`. */
export interface HeldStep<Body> {
  arrived: Promise<RecordedRequest<Body>>;
  release: () => void;
}

/** A running fake model server. */
export interface FakeModel<Body, Handed extends HandedResult> {
  /** The base URL to give the client. */
  url: string;
  /** Every request to the model endpoint, in the order received. */
  requests: RecordedRequest<Body>[];
  /** Requests the fake model could not answer as asked, as "METHOD /path" (or "ERROR …" for a failed answer). */
  unknown: string[];
  /** Holds the answer to plan step `step`. Call it before the client can reach that step. */
  hold: (step: number) => HeldStep<Body>;
  /** Every tool result in the last request of the agent's loop, matched to the call it answers. */
  handedResults: () => Handed[];
  close: () => Promise<void>;
}

/** What an API adds to the shared server: its paths, how a request picks its step, how an answer is sent. */
export interface WireFormat<Body, Handed extends HandedResult> {
  /** The path of the base URL a client is given: '' or '/v1'. */
  basePath: string;
  /** The path the agent's loop POSTs to, e.g. '/v1/messages'. */
  endpoint: string;
  /** Whether a request offers the tool of this qualified name. */
  offers: (body: Body, tool: string) => boolean;
  /** How many turns the model wrote in a conversation: the index of the plan step that answers it. */
  turnsOf: (body: Body) => number;
  /** Writes `step` (plan index `index`, 0 for a side request) as the answer to `body`. */
  answer: (res: ServerResponse, body: Body, step: PlanStep, index: number) => void;
  /** Every tool result a request body hands the model, matched to the call it answers. */
  resultsOf: (body: Body) => Handed[];
  /** JSON answers to other requests a client makes, by "METHOD /path". */
  fixedAnswers?: Readonly<Record<string, unknown>>;
  /** The API's JSON error body. */
  errorBody: (status: 404 | 500, message: string) => unknown;
}

/** A tool result's content as one string: a string as it is, else the text of its parts joined by a newline. */
export function joinedText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { text: string } => typeof part?.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** What a side request (a title, a summary) is answered with. */
const SIDE_ANSWER: PlanStep = { kind: 'text', text: 'ok' };

/**
 * Starts answering with a stream of server-sent events; the function returned writes one event, its
 * name being its data's `type`.
 */
export function eventStream(res: ServerResponse): (data: TypedObject) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  return (data) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Answers `value` as JSON with `status`. */
export function writeJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The holds a test set, by plan step. */
class Holds<Body> {
  readonly #held = new Map<
    number,
    { arrived: (r: RecordedRequest<Body>) => void; released: Promise<void> }
  >();

  hold(step: number): HeldStep<Body> {
    let arrived!: (r: RecordedRequest<Body>) => void;
    let release!: () => void;
    const arrival = new Promise<RecordedRequest<Body>>((resolve) => {
      arrived = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#held.set(step, { arrived, released });
    return { arrived: arrival, release };
  }

  /** Resolves once `recorded`'s step (if held) is released. */
  async pass(recorded: RecordedRequest<Body>): Promise<void> {
    const held = recorded.step === undefined ? undefined : this.#held.get(recorded.step);
    if (!held) return;
    held.arrived(recorded);
    await held.released;
  }
}

/** Starts a fake model speaking `wire` on 127.0.0.1 at a free port. */
export async function startFakeModel<Body, Handed extends HandedResult>(
  wire: WireFormat<Body, Handed>,
  options: FakeModelOptions,
): Promise<FakeModel<Body, Handed>> {
  const requests: RecordedRequest<Body>[] = [];
  const unknown: string[] = [];
  const holds = new Holds<Body>();

  const onEndpoint = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const encoding = req.headers['content-encoding'];
    // The fake model reads plain JSON only; a compressed body is named rather than misread.
    if (encoding !== undefined) unknown.push(`POST ${wire.endpoint} with content-encoding ${encoding}`);
    const body = JSON.parse(await readBody(req)) as Body;
    const step = wire.offers(body, options.agentTool) ? wire.turnsOf(body) : undefined;
    const recorded: RecordedRequest<Body> = { body, step };
    requests.push(recorded);
    await holds.pass(recorded);
    const planned =
      step === undefined
        ? SIDE_ANSWER
        : (options.plan[step] ?? { kind: 'text', text: `(the fake model's plan has no step ${step})` });
    wire.answer(res, body, planned, step ?? 0);
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method === 'POST' && path === wire.endpoint) return onEndpoint(req, res);
    await readBody(req);
    const key = `${req.method} ${path}`;
    const fixed = wire.fixedAnswers?.[key];
    if (fixed !== undefined) return writeJson(res, 200, fixed);
    unknown.push(key);
    writeJson(res, 404, wire.errorBody(404, `the fake model has no ${path}`));
  };

  const server: Server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      unknown.push(`ERROR ${req.method} ${req.url}: ${String(error)}`);
      if (!res.headersSent) writeJson(res, 500, wire.errorBody(500, String(error)));
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${wire.basePath}`,
    requests,
    unknown,
    hold: (step) => holds.hold(step),
    handedResults: () => {
      const last = requests.filter((r) => r.step !== undefined).at(-1);
      return last ? wire.resultsOf(last.body) : [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
