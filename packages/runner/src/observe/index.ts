// Observation (seed 004, "Records and observation"): after a run, read the agent's own transcript
// into the run record — its final message, tool calls and tokens. The transcript of a run is the
// newest transcript file of the agent, for the run's working directory, written while it ran.
import { type Dirent, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentKind } from '../schema';
import { TRANSCRIPT_SOURCES, type TranscriptSource } from './sources';
import type { Observation } from './types';

export { readClaudeCode } from './claude-code';
export { readCodex } from './codex';
export { readPi } from './pi';
export type { TranscriptSource, UnreadableSource } from './sources';
export { TRANSCRIPT_SOURCES } from './sources';
export type { Observation, TranscriptSummary } from './types';

/** A transcript larger than this is not read (its run record says so). */
export const TRANSCRIPT_MAX_BYTES = 64 * 1024 * 1024;
/** Clock slack between the run's start and the agent's first write to its transcript. */
const SLACK_MS = 2000;

/** What one run leaves to observe. */
export interface RunToObserve {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** `.jsonl` files below `dir` changed since `since`; dated folders not changed since are skipped. */
function recentFiles(dir: string, since: number, nested: boolean): { file: string; mtime: number }[] {
  const out: { file: string; mtime: number }[] = [];
  for (const e of entries(dir)) {
    const path = join(dir, e.name);
    let mtime: number;
    try {
      mtime = statSync(path).mtimeMs;
    } catch {
      continue;
    }
    if (mtime < since) continue;
    if (e.isDirectory() && nested) out.push(...recentFiles(path, since, nested));
    else if (e.isFile() && e.name.endsWith('.jsonl')) out.push({ file: path, mtime });
  }
  return out;
}

function locate(source: TranscriptSource, run: RunToObserve): { dir: string; file?: string; text?: string } {
  const dir = source.dir(run.env, run.cwd);
  const candidates = recentFiles(dir, run.startedAt - SLACK_MS, source.nested).sort(
    (a, b) => b.mtime - a.mtime,
  );
  for (const { file } of candidates) {
    if (statSync(file).size > TRANSCRIPT_MAX_BYTES) continue;
    const text = readFileSync(file, 'utf8');
    if (source.belongs === undefined || source.belongs(text, run.cwd)) return { dir, file, text };
  }
  return { dir };
}

/**
 * Observes one finished run of an agent (`kind`: the adapter, or a `command` harness's
 * `transcripts`). Never throws: a transcript that is missing or unreadable is an observation that
 * says so.
 */
export function observeRun(kind: AgentKind, run: RunToObserve): Observation {
  const source = TRANSCRIPT_SOURCES[kind];
  if (source.kind === 'unavailable') return { status: 'unavailable', source: kind, message: source.message };
  try {
    const found = locate(source, run);
    if (found.file === undefined || found.text === undefined) {
      return {
        status: 'not_found',
        source: kind,
        root: found.dir,
        message: `no ${kind} transcript for ${run.cwd} was written under ${found.dir} during the run`,
      };
    }
    return { status: 'read', source: kind, file: found.file, ...source.read(found.text) };
  } catch (error) {
    return {
      status: 'unavailable',
      source: kind,
      message: `the ${kind} transcript could not be read: ${(error as Error).message}`,
    };
  }
}
