// Which model a task turn talks to, read from the environment the console was started with. Nothing
// is guessed from a stray API key: a provider and a model must both be named.

import type { ModelProvider, ModelStatus } from '../../answers';

/** The providers a task can use (`ModelProvider`, of the console's answer types). */
export const MODEL_PROVIDERS = [
  'openai-compatible',
  'openai',
  'anthropic',
] as const satisfies readonly ModelProvider[];

/** The environment variables read, in one place (docs/console.md, "Tasks"). */
export const MODEL_ENV = {
  provider: 'HARNESS_MODEL_PROVIDER',
  model: 'HARNESS_MODEL',
  baseUrl: 'HARNESS_MODEL_BASE_URL',
  apiKey: 'HARNESS_MODEL_API_KEY',
} as const;

/** The provider's own key variable, used when {@link MODEL_ENV.apiKey} is unset. */
const PROVIDER_KEY_ENV: Record<ModelProvider, string | undefined> = {
  'openai-compatible': undefined,
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/** A configured model. `apiKey` never leaves the server, nor appears in an answer or a log. */
export interface ModelConfig {
  provider: ModelProvider;
  model: string;
  baseUrl: string | undefined;
  apiKey: string | undefined;
}

export const MODEL_HOW_TO = [
  `Set ${MODEL_ENV.provider} and ${MODEL_ENV.model} in the console's environment, then restart it:`,
  `  a local or other OpenAI-compatible server (Ollama, llama.cpp): ${MODEL_ENV.provider}=openai-compatible ${MODEL_ENV.baseUrl}=http://127.0.0.1:11434/v1 ${MODEL_ENV.model}=llama3.1`,
  `  OpenAI: ${MODEL_ENV.provider}=openai ${MODEL_ENV.model}=gpt-4.1 and OPENAI_API_KEY (or ${MODEL_ENV.apiKey})`,
  `  Anthropic: ${MODEL_ENV.provider}=anthropic ${MODEL_ENV.model}=claude-sonnet-4-5 and ANTHROPIC_API_KEY (or ${MODEL_ENV.apiKey})`,
].join('\n');

/** Reads the model configuration; an incomplete one is reported with what is missing. */
export function readModelConfig(
  env: Record<string, string | undefined>,
): { ok: true; config: ModelConfig } | { ok: false; status: Extract<ModelStatus, { configured: false }> } {
  const invalid = (message: string) =>
    ({ ok: false, status: { configured: false, problem: 'invalid', message, howTo: MODEL_HOW_TO } }) as const;
  const provider = env[MODEL_ENV.provider] || undefined;
  const model = env[MODEL_ENV.model] || undefined;
  const baseUrl = env[MODEL_ENV.baseUrl] || undefined;
  if (provider === undefined && model === undefined && baseUrl === undefined) {
    return {
      ok: false,
      status: {
        configured: false,
        problem: 'not_configured',
        message: 'no model is configured, so tasks cannot run; everything else in the console works',
        howTo: MODEL_HOW_TO,
      },
    };
  }
  if (provider === undefined || !(MODEL_PROVIDERS as readonly string[]).includes(provider))
    return invalid(
      `${MODEL_ENV.provider} must be one of ${MODEL_PROVIDERS.join(', ')}${provider === undefined ? '' : `, found '${provider.slice(0, 40)}'`}`,
    );
  if (model === undefined) return invalid(`${MODEL_ENV.model} must name the model to use`);
  const kind = provider as ModelProvider;
  if (kind === 'openai-compatible' && baseUrl === undefined)
    return invalid(
      `${MODEL_ENV.baseUrl} must give the server's URL for openai-compatible (e.g. http://127.0.0.1:11434/v1)`,
    );
  if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(baseUrl))
    return invalid(`${MODEL_ENV.baseUrl} must be an http(s) URL`);
  const keyEnv = PROVIDER_KEY_ENV[kind];
  const apiKey = env[MODEL_ENV.apiKey] || (keyEnv === undefined ? undefined : env[keyEnv]) || undefined;
  if (kind !== 'openai-compatible' && apiKey === undefined)
    return invalid(`${kind} needs an API key: set ${keyEnv} or ${MODEL_ENV.apiKey}`);
  return { ok: true, config: { provider: kind, model, baseUrl, apiKey } };
}

/** The status the Tasks view and `GET /api/task/model` show (never the key). */
export function modelStatus(read: ReturnType<typeof readModelConfig>): ModelStatus {
  if (!read.ok) return read.status;
  const { provider, model, baseUrl } = read.config;
  return { configured: true, provider, model, baseUrl: baseUrl ?? null };
}
