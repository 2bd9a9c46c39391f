// The runner's run records, as `harness runs --json` and a console's HTTP answers give them: types
// only, importing nothing, so a page running in a browser can type what it reads with the runner's
// own definitions (`import type { RunRecord } from '@harness/runner/records'`).
import type { Observation } from './observe/types';

export type { Observation, TranscriptSummary } from './observe/types';

/**
 * A job's status, as its run record says it. `pending`: accepted and recorded, not started yet (a
 * restart starts it).
 */
export type JobStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped';

/** One run record, as `harness runs --json` prints it. */
export interface RunRecord {
  id: string;
  harness: string;
  status: JobStatus;
  /** Why it was skipped or failed: `template_unresolved`, `render_refused`, `exit_code`, `timeout`, `output_exceeded`, `signaled`, `spawn_failed`, `runner_restarted`. */
  reason: string | null;
  /** For `template_unresolved`: the unresolved path. */
  path: string | null;
  /** `webhook`, `schedule`, `resident` or `manual`. */
  trigger: string;
  /**
   * The id of the webhook source that started the run, as configured and as in `/hooks/<id>` (e.g.
   * `gh`); for a replayed event, the source that received it. `null` for a run no source started.
   */
  source: string | null;
  /**
   * The forge's delivery id (`X-GitHub-Delivery`, `X-Gitea-Delivery`, `X-Forgejo-Delivery`) of the
   * webhook delivery that started the run, as the receiver's 202 answer names it (at most 200
   * characters). Unsigned, so data only. `null` for a schedule, resident or manual run, or when the
   * forge sent none.
   */
  delivery: string | null;
  event_file: string | null;
  /** How the prompt reached the program: `argv`, `stdin`, `file`, or `none` (no prompt); `null` until it starts. */
  prompt_delivery: string | null;
  stdin_is_prompt: boolean;
  exit_code: number | null;
  signal: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  /** What the program wrote (stdout and stderr, or the terminal), bounded. */
  log_file: string | null;
  /** One line for a person: what happened. */
  message: string | null;
  /** What the agent's own transcript says (final message, tool calls, tokens); `null` when not observed. */
  observation: Observation | null;
}
