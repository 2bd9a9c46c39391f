// The spawn plan (seed 004, "Where rendering happens in spawn"): pure, so every argv, prompt and
// environment a run would get can be checked without starting a process. The supervisor carries the
// plan out (writes the prompt file, wires stdin, spawns).
import { join } from 'node:path';
import { buildRenderContext, type LoadedEnvelope, type RunTrigger } from '@harness/events';
import { render, renderArgv, TmplError, type TmplWarning } from '@harness/tmpl';
import { ADAPTERS, type RunTools } from './adapters';
import type { AgentKind, PromptDelivery } from './schema';
import type { Harness } from './types';

/** Variables always copied from the runner's own environment (when set there). */
export const BASE_ENV_NAMES: readonly string[] = ['PATH', 'HOME', 'LANG', 'TZ'];

/**
 * One job to plan (a run, as its record and `harness runs` name it): who asked, when, and the event
 * of a triggered job.
 */
export interface JobRequest {
  readonly id: string;
  readonly trigger: RunTrigger;
  /**
   * What started it, as templates read it (`run.source`): the source's name, e.g. `webhook.gh` (the
   * run record keeps the source's id, `gh`).
   */
  readonly source?: string;
  readonly startedAt: Date;
  /** The event of a triggered or replayed run: the envelope file and its (re-)extraction. */
  readonly event?: LoadedEnvelope & { readonly file: string };
  /** `<instance>/runner/jobs`: prompt files go to `<jobsDir>/<harness>/<run id>.prompt`. */
  readonly jobsDir: string;
  /** The runner's environment, from which `PATH`, `HOME`, `LANG`, `TZ` and `env_inherit` are copied. */
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  /**
   * How to start `harness serve` for a harness with `tools`: its argv up to the verb (e.g. `[node,
   * /path/harness.js]`) and the instance directory the served workspace lives in.
   */
  readonly serve?: { readonly argv: readonly string[]; readonly instanceDir: string };
}

/** What a run will execute (TM-79: `{ name, args, stdin, extraEnv, promptFile }` plus what the supervisor needs). */
export interface SpawnPlan {
  /** The executable: `argv[0]` as written, an adapter's executable, or `sh` for generic. */
  readonly name: string;
  readonly args: readonly string[];
  /** The whole prompt for `stdin` delivery, else `undefined`. */
  readonly stdin: string | undefined;
  /** What the run adds to the environment: `HARNESS_RUN_ID`, `HARNESS_NAME`, `HARNESS_TRIGGER`, `HARNESS_EVENT_FILE`, `HARNESS_PROMPT_FILE`, `HARNESS_MCP_CONFIG`. */
  readonly extraEnv: Readonly<Record<string, string>>;
  /** For `file` delivery, where the prompt must be written (0600) before spawn. */
  readonly promptFile: string | undefined;
  /** The whole environment: the base names and `env_inherit` from the runner, then the harness's `env`, then `extraEnv`. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** How the prompt travels; `none` when the run has no prompt. */
  readonly delivery: PromptDelivery | 'none';
  /** The rendered prompt (what `stdin` carries or the prompt file holds), when there is one. */
  readonly prompt: string | undefined;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** For a harness with `tools`: the run's MCP server, and the config file to write (0600) before spawn. */
  readonly tools: (RunTools & { readonly configText: string }) | undefined;
}

/** Why a run could not be planned; nothing is spawned. */
export type PlanFailure =
  | {
      readonly ok: false;
      readonly code: 'template_unresolved';
      readonly path: string;
      readonly message: string;
    }
  | { readonly ok: false; readonly code: 'generic_prompt'; readonly message: string }
  | { readonly ok: false; readonly code: 'tools_unavailable'; readonly message: string }
  | { readonly ok: false; readonly code: 'render_refused'; readonly path?: string; readonly message: string };

/** What {@link planSpawn} returns. `untrustedRenders` counts fenced values rendered into the prompt. */
export type PlanResult =
  | { readonly ok: true; readonly plan: SpawnPlan; readonly untrustedRenders: number }
  | PlanFailure;

/** Options of {@link planSpawn}. */
export interface PlanOptions {
  /** Receives tmpl's `untrusted_render` warning for every fenced value (default: `console.warn`). */
  readonly onWarn?: (warning: TmplWarning) => void;
}

function failure(error: unknown): PlanFailure {
  if (error instanceof TmplError && error.code === 'unresolved') {
    const path = error.path ?? '';
    return {
      ok: false,
      code: 'template_unresolved',
      path,
      message: `template_unresolved: {{${path}}} has no value in this run`,
    };
  }
  if (error instanceof TmplError) {
    return {
      ok: false,
      code: 'render_refused',
      ...(error.path !== undefined ? { path: error.path } : {}),
      message: error.message,
    };
  }
  throw error;
}

/**
 * The run's own `harness serve`: the harness's workspace and agent, this run's job id, the prompt
 * slot (`context` when the task came from an event, whose text the person did not write), and the
 * configured ceiling.
 */
function runTools(h: Harness, request: JobRequest): (RunTools & { configText: string }) | undefined {
  if (h.tools === undefined || request.serve === undefined) return undefined;
  const [command, ...rest] = request.serve.argv as [string, ...string[]];
  const args = [
    ...rest,
    'serve',
    '--workspace',
    h.tools.workspace,
    '--agent',
    h.tools.agent,
    '--instance',
    request.serve.instanceDir,
    '--job-id',
    request.id,
    '--prompt-slot',
    request.event !== undefined ? 'context' : 'direct-command',
    ...(h.tools.maxConfidentiality !== undefined
      ? ['--max-confidentiality', h.tools.maxConfidentiality]
      : []),
  ];
  const configFile = join(request.jobsDir, h.id, `${request.id}.mcp.json`);
  const configText = `${JSON.stringify({ mcpServers: { harness: { type: 'stdio', command, args } } }, null, 2)}\n`;
  return { command, args, configFile, configText };
}

function environment(h: Harness, request: JobRequest, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...BASE_ENV_NAMES, ...h.envInherit]) {
    const value = request.parentEnv[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...h.env, ...extra };
}

/**
 * Plans one run of a harness: renders the prompt (templates only; `prompt`/`prompt_file` are
 * verbatim), then the argv (`argv[1:]` of a command, with `{{prompt}}` bound for argv delivery and
 * `{{prompt_file}}` for file delivery), and the environment. Never spawns and never touches the disk.
 *
 * A required value absent from the run context is `template_unresolved` naming the path (TM-80, TM-81);
 * a generic harness with a prompt is `generic_prompt` (TM-104). A built-in adapter's rendered prompt
 * that starts with `-` is `render_refused`: it would be read as an option.
 */
export function planSpawn(h: Harness, request: JobRequest, options: PlanOptions = {}): PlanResult {
  if (h.kind === 'generic' && h.prompt !== undefined) {
    return {
      ok: false,
      code: 'generic_prompt',
      message: `harness ${h.id} is generic and has a prompt: generic runs sh -c, never an agent; use an agent kind or command`,
    };
  }
  let untrustedRenders = 0;
  const onWarn = (w: TmplWarning): void => {
    if (w.code === 'untrusted_render') untrustedRenders++;
    (options.onWarn ?? console.warn)(w);
  };
  const base = {
    harness: { name: h.id, workdir: h.workdir },
    ...(h.model !== undefined ? { model: h.model } : {}),
    run: {
      id: request.id,
      trigger: request.trigger,
      startedAt: request.startedAt,
      ...(request.source !== undefined ? { source: request.source } : {}),
    },
    ...(request.event !== undefined ? { event: request.event } : {}),
    untrustedInline: h.untrustedInline,
  };
  const extraEnv: Record<string, string> = {
    HARNESS_RUN_ID: request.id,
    HARNESS_NAME: h.id,
    HARNESS_TRIGGER: request.trigger,
  };
  if (request.event !== undefined) extraEnv.HARNESS_EVENT_FILE = request.event.file;
  if (h.tools !== undefined && request.serve === undefined) {
    return {
      ok: false,
      code: 'tools_unavailable',
      message: `harness ${h.id} has tools, but this runner was started without a way to start harness serve; start it with harness runner start`,
    };
  }
  const tools = runTools(h, request);
  if (tools !== undefined) extraEnv.HARNESS_MCP_CONFIG = tools.configFile;
  try {
    let prompt: string | undefined;
    if (h.prompt?.kind === 'verbatim') prompt = h.prompt.text;
    else if (h.prompt?.kind === 'template') {
      const fenceSource = request.event?.envelope.source ?? request.source;
      prompt = render(h.prompt.template, buildRenderContext(base), {
        onWarn,
        ...(fenceSource !== undefined ? { fenceSource } : {}),
      });
    }
    const delivery: PromptDelivery | 'none' = prompt === undefined ? 'none' : (h.delivery ?? 'argv');
    const promptFile = delivery === 'file' ? join(request.jobsDir, h.id, `${request.id}.prompt`) : undefined;
    if (promptFile !== undefined) extraEnv.HARNESS_PROMPT_FILE = promptFile;
    let name: string;
    let args: string[];
    if (h.kind === 'command') {
      const ctx = buildRenderContext({
        ...base,
        ...(delivery === 'argv' && prompt !== undefined ? { prompt } : {}),
        ...(promptFile !== undefined ? { promptFile } : {}),
      });
      name = h.argv?.[0] as string;
      args = renderArgv(h.argvTemplates ?? [], ctx, { onWarn });
    } else if (h.kind === 'generic') {
      name = 'sh';
      args = ['-c', h.shell as string];
    } else {
      const adapter = ADAPTERS[h.kind as AgentKind];
      name = adapter.exe;
      if (prompt === undefined) args = adapter.resident(h.args, tools);
      else {
        if (prompt.startsWith('-')) {
          return {
            ok: false,
            code: 'render_refused',
            message: `the prompt of harness ${h.id} starts with "-" and ${adapter.exe} would read it as an option; start the prompt with text`,
          };
        }
        args = adapter.oneShot(prompt, h.model, tools);
      }
    }
    const plan: SpawnPlan = {
      name,
      args,
      stdin: delivery === 'stdin' ? prompt : undefined,
      extraEnv,
      promptFile,
      env: environment(h, request, extraEnv),
      cwd: h.workdir,
      delivery,
      prompt,
      timeoutMs: h.timeoutMs,
      maxOutputBytes: h.maxOutputBytes,
      tools,
    };
    return { ok: true, plan, untrustedRenders };
  } catch (error) {
    return failure(error);
  }
}
