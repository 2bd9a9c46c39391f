// One step of a model: the transcript and the tools in, the model's text and tool calls out. Each
// provider is reached through its own client library (`openai` with a base URL for OpenAI and
// OpenAI-compatible servers, `@anthropic-ai/sdk` for Anthropic); see docs/console.md for why.
import type { JsonSchema } from '@harness/commands';
import type { ModelConfig } from './model-config';
import type { ToolCall, TranscriptItem } from './transcript';

/** A tool as the model is shown it. */
export interface ModelTool {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** What one step asks. */
export interface StepRequest {
  system: string;
  items: readonly TranscriptItem[];
  tools: readonly ModelTool[];
  signal?: AbortSignal | undefined;
}

/** What one step answered. */
export interface StepAnswer {
  text: string;
  toolCalls: ToolCall[];
}

export interface ChatModel {
  step(request: StepRequest): Promise<StepAnswer>;
}

const MAX_TOKENS = 4096;

/** The client for a configured model. */
export async function createChatModel(config: ModelConfig): Promise<ChatModel> {
  return config.provider === 'anthropic' ? anthropicModel(config) : openAiModel(config);
}

async function openAiModel(config: ModelConfig): Promise<ChatModel> {
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({
    // A local server needs no key; the client insists on a string.
    apiKey: config.apiKey ?? 'unused',
    ...(config.baseUrl === undefined ? {} : { baseURL: config.baseUrl }),
    maxRetries: 1,
  });
  return {
    async step({ system, items, tools, signal }) {
      const messages: Record<string, unknown>[] = [{ role: 'system', content: system }];
      for (const item of items) {
        if (item.role === 'user' || item.role === 'context')
          messages.push({ role: 'user', content: item.content });
        else if (item.role === 'assistant')
          messages.push({
            role: 'assistant',
            content: item.content === '' ? null : item.content,
            ...(item.toolCalls.length === 0
              ? {}
              : {
                  tool_calls: item.toolCalls.map((c) => ({
                    id: c.id,
                    type: 'function',
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }),
          });
        else messages.push({ role: 'tool', tool_call_id: item.toolCallId, content: item.content });
      }
      const completion = await client.chat.completions.create(
        {
          model: config.model,
          messages: messages as never,
          ...(tools.length === 0
            ? {}
            : {
                tools: tools.map((t) => ({
                  type: 'function' as const,
                  function: { name: t.name, description: t.description, parameters: t.parameters },
                })),
              }),
        },
        signal === undefined ? {} : { signal },
      );
      const message = completion.choices[0]?.message;
      const toolCalls: ToolCall[] = [];
      for (const c of message?.tool_calls ?? []) {
        if (c.type === 'function')
          toolCalls.push({ id: c.id, name: c.function.name, arguments: c.function.arguments });
      }
      return { text: message?.content ?? '', toolCalls };
    },
  };
}

async function anthropicModel(config: ModelConfig): Promise<ChatModel> {
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  const client = new Anthropic({
    apiKey: config.apiKey ?? '',
    ...(config.baseUrl === undefined ? {} : { baseURL: config.baseUrl }),
    maxRetries: 1,
  });
  return {
    async step({ system, items, tools, signal }) {
      // Anthropic wants user and assistant turns to alternate: tool results and the user's text
      // that follow one another go into one user message.
      const messages: { role: 'user' | 'assistant'; content: Record<string, unknown>[] }[] = [];
      const push = (role: 'user' | 'assistant', block: Record<string, unknown>) => {
        const last = messages[messages.length - 1];
        if (last?.role === role) last.content.push(block);
        else messages.push({ role, content: [block] });
      };
      for (const item of items) {
        if (item.role === 'user' || item.role === 'context')
          push('user', { type: 'text', text: item.content });
        else if (item.role === 'assistant') {
          if (item.content !== '') push('assistant', { type: 'text', text: item.content });
          for (const c of item.toolCalls)
            push('assistant', { type: 'tool_use', id: c.id, name: c.name, input: parseInput(c.arguments) });
        } else push('user', { type: 'tool_result', tool_use_id: item.toolCallId, content: item.content });
      }
      const answer = await client.messages.create(
        {
          model: config.model,
          max_tokens: MAX_TOKENS,
          system,
          messages: messages as never,
          tools: tools.map((t) => ({
            name: t.name,
            description: t.description,
            input_schema: t.parameters as never,
          })),
        },
        signal === undefined ? {} : { signal },
      );
      let text = '';
      const toolCalls: ToolCall[] = [];
      for (const block of answer.content) {
        if (block.type === 'text') text += block.text;
        else if (block.type === 'tool_use')
          toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
      }
      return { text, toolCalls };
    },
  };
}

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
