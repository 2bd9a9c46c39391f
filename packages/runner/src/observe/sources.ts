// The observer's source map (TM-121): which transcript reader observes a harness, found by adapter
// name (`command` harnesses name one through `transcripts`), and where each agent keeps its
// transcripts, resolved through the run's own environment (TM-122: a harness `env` that moves the
// agent's directory is followed).
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentKind } from '../schema';
import { readClaudeCode } from './claude-code';
import { codexSessionCwd, readCodex } from './codex';
import { piSessionDir, readPi } from './pi';
import type { TranscriptSummary } from './types';

type Env = Readonly<Record<string, string | undefined>>;

/** Where one agent's transcripts are and how to read them. */
export interface TranscriptSource {
  readonly kind: 'reader';
  readonly name: AgentKind;
  /** The directory that holds a run's transcripts, for a run in `cwd` with environment `env`. */
  dir(env: Env, cwd: string): string;
  /** Whether the transcript tree below `dir` is dated folders (searched by modification time). */
  readonly nested: boolean;
  /** Whether a candidate file belongs to a run in `cwd` (when the folder alone does not say). */
  belongs?(text: string, cwd: string): boolean;
  read(text: string): TranscriptSummary;
}

/** An agent whose transcripts this version cannot read, and why. */
export interface UnreadableSource {
  readonly kind: 'unavailable';
  readonly name: AgentKind;
  readonly message: string;
  /** Where its sessions are, where that is known (shown by `describe`; not read). */
  sessionRoot?(env: Env): string;
}

function home(env: Env): string {
  return env.HOME ?? homedir();
}

function expandHome(path: string, env: Env): string {
  return path === '~' || path.startsWith('~/') ? join(home(env), path.slice(1)) : path;
}

/** Every agent by adapter name (TM-121). */
export const TRANSCRIPT_SOURCES: Readonly<Record<AgentKind, TranscriptSource | UnreadableSource>> = {
  'claude-code': {
    kind: 'reader',
    name: 'claude-code',
    // `$CLAUDE_CONFIG_DIR` (default ~/.claude)/projects/<cwd with each non-alphanumeric character as "-">
    dir: (env, cwd) =>
      join(
        env.CLAUDE_CONFIG_DIR ? expandHome(env.CLAUDE_CONFIG_DIR, env) : join(home(env), '.claude'),
        'projects',
        cwd.replace(/[^A-Za-z0-9]/g, '-'),
      ),
    nested: false,
    read: readClaudeCode,
  },
  codex: {
    kind: 'reader',
    name: 'codex',
    dir: (env) =>
      join(env.CODEX_HOME ? expandHome(env.CODEX_HOME, env) : join(home(env), '.codex'), 'sessions'),
    nested: true,
    belongs: (text, cwd) => codexSessionCwd(text) === cwd,
    read: readCodex,
  },
  pi: {
    kind: 'reader',
    name: 'pi',
    dir: (env, cwd) =>
      piSessionDir(
        env.PI_CODING_AGENT_DIR ? expandHome(env.PI_CODING_AGENT_DIR, env) : join(home(env), '.pi', 'agent'),
        cwd,
      ),
    nested: false,
    read: readPi,
  },
  omp: {
    kind: 'unavailable',
    name: 'omp',
    // OMP 18.3.4 (its source and `omp --help`): PI_CODING_AGENT_DIR, default ~/.omp/agent, holds
    // sessions/; an OMP_PROFILE moves it (not followed here). Its session folder names differ from
    // Pi's (relative to the home or temp directory, with a hash), and no OMP session could be
    // recorded here (it runs on Bun), so its sessions are located but not read.
    sessionRoot: (env) =>
      join(
        env.PI_CODING_AGENT_DIR ? expandHome(env.PI_CODING_AGENT_DIR, env) : join(home(env), '.omp', 'agent'),
        'sessions',
      ),
    message:
      "omp is not observed: its session folders are named unlike Pi's and no OMP session could be recorded to confirm its format (omp 18.3.4 runs on Bun); if its sessions are Pi's, use a command harness with transcripts: pi",
  },
  crush: {
    kind: 'unavailable',
    name: 'crush',
    message:
      'crush is not observed: it keeps sessions in a SQLite database whose format could not be confirmed against a binary here',
  },
};
