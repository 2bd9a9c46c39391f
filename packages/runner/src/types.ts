import type { Template } from '@harness/tmpl';
import type { AgentKind, HarnessKind, PromptDelivery } from './schema';

/** When a harness runs: by hand only, resident (kept running), on a schedule, or on webhook events. */
export type When =
  | { readonly type: 'manual' }
  | { readonly type: 'resident' }
  | { readonly type: 'schedule'; readonly cron: string }
  | {
      readonly type: 'trigger';
      readonly source: string;
      readonly events: readonly string[];
      readonly actions?: readonly string[];
    };

/**
 * A harness's prompt: verbatim (`prompt`, `prompt_file`: a `{{…}}` in it is text, TM-76) or a
 * template parsed at load (`prompt_template`, `prompt_template_file`, TM-77). Files are read at load.
 */
export type PromptSpec =
  | { readonly kind: 'verbatim'; readonly from: 'prompt' | 'prompt_file'; readonly text: string }
  | {
      readonly kind: 'template';
      readonly from: 'prompt_template' | 'prompt_template_file';
      readonly template: Template;
    };

/** One configured harness, every default resolved. */
export interface Harness {
  readonly id: string;
  readonly kind: HarnessKind;
  readonly when: When;
  /** `command`: the argv as written; `argv[0]` is used as is, `argv[1:]` are templates (TM-85). */
  readonly argv?: readonly string[];
  /** `command`: `argv[1:]`, parsed at load. */
  readonly argvTemplates?: readonly Template[];
  /** Agent kinds, resident runs: arguments appended to the executable. */
  readonly args: readonly string[];
  /** `generic`: the one-liner run as `sh -c <shell>`. */
  readonly shell?: string;
  /** `command`: the adapter whose transcripts observe it. */
  readonly transcripts?: AgentKind;
  readonly prompt?: PromptSpec;
  /** How the prompt reaches the process; `argv` for every agent kind; unset without a prompt. */
  readonly delivery?: PromptDelivery;
  readonly untrustedInline: boolean;
  readonly model?: string;
  /** Absolute working directory; default the runner file's directory. */
  readonly workdir: string;
  /** Literal values from the operator; never rendered. */
  readonly env: Readonly<Record<string, string>>;
  /** Names copied from the runner's own environment. */
  readonly envInherit: readonly string[];
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** Governed tools: a `harness serve` bound to each run, given through the agent's MCP configuration. */
  readonly tools?: HarnessTools;
}

/** What `tools` gives a run: the workspace (absolute), its agent, and the information-flow ceiling. */
export interface HarnessTools {
  readonly workspace: string;
  readonly agent: string;
  readonly maxConfidentiality?: string;
}

/** One webhook source. The secret is read from `secretEnv` when the receiver starts, never stored here. */
export interface Source {
  readonly id: string;
  readonly scheme: 'github' | 'gitea' | 'forgejo';
  readonly secretEnv: string;
  readonly trustedActors: readonly string[];
}

/** A loaded runner file. */
export interface RunnerConfig {
  /** The file it was read from (absolute), when it came from a file. */
  readonly file: string;
  readonly listen?: { readonly host: string; readonly port: number };
  readonly maxBodyBytes: number;
  /**
   * How long an accepted webhook body is remembered (by source and SHA-256 of its bytes) so that a
   * replay of it, whatever its unsigned headers say, starts nothing; the delivery ids seen are kept as
   * long. Past the window the same body is accepted again.
   */
  readonly deliveryRetentionMs: number;
  /** Triggered and scheduled runs in flight at once (resident harnesses are not counted). */
  readonly concurrency: number;
  readonly sources: readonly Source[];
  readonly harnesses: readonly Harness[];
}
