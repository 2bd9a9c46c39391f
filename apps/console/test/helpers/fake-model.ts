// A FAKE model: an OpenAI-compatible chat-completions server on loopback that answers from a script
// instead of a language model (no model can run here). Everything around it is real: the console
// reaches it through the `openai` client with a base URL, exactly as it reaches Ollama or llama.cpp.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One chat-completions request the fake received. */
export interface FakeModelRequest {
  model: string;
  messages: { role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools: { type: string; function: { name: string; description: string; parameters: unknown } }[];
  authorization: string | undefined;
}

/** What the fake answers for one request: text, tool calls, or both. */
export interface FakeReply {
  content?: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> | string }[];
  /** Answer with this HTTP status and an error body instead. */
  httpStatus?: number;
}

/** Picks the reply to a request; `step` counts the requests of the current turn from 0. */
export type FakeScript = (request: FakeModelRequest, step: number) => FakeReply;

export interface FakeModelServer {
  /** The base URL for HARNESS_MODEL_BASE_URL (`http://127.0.0.1:<port>/v1`). */
  baseUrl: string;
  requests: FakeModelRequest[];
  /** Replaces the script (and restarts the step count) for the next turn. */
  script(next: FakeScript): void;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += (chunk as Buffer).toString('utf8');
  return text;
}

/** The context message the console put in the request (the first user message of a turn that starts with it). */
export function contextOf(request: FakeModelRequest): string {
  const found = [...request.messages]
    .reverse()
    .find(
      (m) => m.role === 'user' && typeof m.content === 'string' && m.content.startsWith('Console context'),
    );
  return found?.content ?? '';
}

/** The tool results of the request, by tool-call id. */
export function toolResults(request: FakeModelRequest): Map<string, string> {
  return new Map(
    request.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id ?? '', m.content ?? '']),
  );
}

export async function startFakeModelServer(initial: FakeScript): Promise<FakeModelServer> {
  let script = initial;
  let step = 0;
  let n = 0;
  const requests: FakeModelRequest[] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'the fake serves POST /v1/chat/completions only' } }));
      return;
    }
    const parsed = JSON.parse(await body(req)) as Omit<FakeModelRequest, 'authorization'>;
    const request: FakeModelRequest = {
      model: parsed.model,
      messages: parsed.messages,
      tools: parsed.tools ?? [],
      authorization: req.headers.authorization,
    };
    requests.push(request);
    const reply = script(request, step++);
    if (reply.httpStatus !== undefined) {
      res.writeHead(reply.httpStatus, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: 'fake failure: key sk-fake-0123456789 was refused', type: 'fake' },
        }),
      );
      return;
    }
    const toolCalls = (reply.toolCalls ?? []).map((c) => ({
      id: c.id,
      type: 'function',
      function: {
        name: c.name,
        arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
      },
    }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `fake-${++n}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: request.model,
        choices: [
          {
            index: 0,
            finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
            message: {
              role: 'assistant',
              content: reply.content ?? null,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
          },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script(next) {
      script = next;
      step = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
