// Observation: reading an agent's own transcript into its run record. The transcripts are real (see
// fixtures/transcripts/README.md); the agents that "write" them in the run tests are the FAKE agent
// (test/fakes/fake-agent.mjs) copying a recorded transcript to where the real agent writes its own.
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readClaudeCode, readCodex, readPi, TRANSCRIPT_SOURCES } from '../src/observe';
import { RunStore } from '../src/store';
import { Supervisor } from '../src/supervisor';
import { fakeAgents, mustLoad } from './helpers';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'transcripts');
const CLAUDE = join(FIXTURES, 'claude-code-tool-heavy.jsonl');
const CLAUDE_REAL = join(FIXTURES, 'claude-code-2.1.197-governed-tools.jsonl');
const CODEX = join(FIXTURES, 'codex-rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl');
const PI = join(FIXTURES, 'pi-0.73.1-session.jsonl');
const text = (file: string) => readFileSync(file, 'utf8');

// The expected figures were read off the fixtures with jq, independently of the readers.
describe('transcript readers, on real transcripts', () => {
  it('reads a Claude Code session: last text of the main conversation, tool calls by name, tokens counted once per response [TM-121]', () => {
    const s = readClaudeCode(text(CLAUDE));
    expect(s.final_message).toBe(
      'Phoenix server is starting in the background.\n\nLet me check the MCP servers status.',
    );
    expect(s.tool_calls).toBe(6);
    expect(s.tools).toEqual({ Bash: 2, Glob: 1, Read: 1, WebFetch: 1, WebSearch: 1 });
    expect(s.tokens).toEqual({ input: 105981, output: 212 });
    expect(s.unreadable_lines).toBe(0);
  });

  it('reads the session the real claude 2.1.197 wrote for a run with governed tools: the MCP call by name [TM-121]', () => {
    const s = readClaudeCode(text(CLAUDE_REAL));
    expect(s.final_message).toBe('The governed tool answered.');
    expect(s.tools).toEqual({ mcp__harness__run_read_command: 1 });
    expect(s.tokens).toEqual({ input: 200, output: 28 });
  });

  it('reads a Codex rollout: the last agent message, the function calls, the running token totals [TM-121]', () => {
    const s = readCodex(text(CODEX));
    expect(s.final_message).toBe('[REDACTED_LAST_AGENT_MESSAGE len=647 sha=10502814]');
    expect(s.tool_calls).toBe(5);
    expect(s.tools).toEqual({
      '[REDACTED_NAME len=43 sha=c186413b]': 1,
      'mcp__cloud-associates__execute_workflow': 3,
      'mcp__cloud-associates__search_workflows': 1,
    });
    expect(s.tokens).toEqual({ input: 298373, output: 1123 });
  });

  it('reads a session the real pi 0.73.1 wrote: final text, the bash call, tokens summed over responses [TM-113] [TM-121]', () => {
    const s = readPi(text(PI));
    expect(s.final_message).toBe('The tool said hello-from-tool. Done.');
    expect(s.tool_calls).toBe(1);
    expect(s.tools).toEqual({ bash: 1 });
    expect(s.tokens).toEqual({ input: 812 + 901, output: 37 + 12 });
  });

  it('skips and counts lines a crash cut short, and still reads the rest', () => {
    const cut = `${text(PI)}{"type":"message","message":{"role":"assis`;
    const s = readPi(cut);
    expect(s.unreadable_lines).toBe(1);
    expect(s.final_message).toBe('The tool said hello-from-tool. Done.');
  });
});

describe('the source map', () => {
  it('covers crush, claude-code, codex, pi and omp by adapter name; omp and crush say why they are not observed [TM-121] [TM-118]', () => {
    expect(Object.keys(TRANSCRIPT_SOURCES).sort()).toEqual(['claude-code', 'codex', 'crush', 'omp', 'pi']);
    expect(TRANSCRIPT_SOURCES.omp).toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('omp is not observed'),
    });
    expect(TRANSCRIPT_SOURCES.crush).toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('crush is not observed'),
    });
  });

  it('finds each agent where it writes, for the names seen on disk [TM-111] [TM-122]', () => {
    const claude = TRANSCRIPT_SOURCES['claude-code'];
    const pi = TRANSCRIPT_SOURCES.pi;
    const codex = TRANSCRIPT_SOURCES.codex;
    if (claude.kind !== 'reader' || pi.kind !== 'reader' || codex.kind !== 'reader')
      throw new Error('readers expected');
    // The folder names below are the ones the agents wrote (fixtures/transcripts/README.md).
    expect(claude.dir({ HOME: '/home/marco' }, '/home/marco/projects/spotter/worktrees/spotter-4te')).toBe(
      '/home/marco/.claude/projects/-home-marco-projects-spotter-worktrees-spotter-4te',
    );
    expect(pi.dir({ HOME: '/h', PI_CODING_AGENT_DIR: '/tmp/pi/agent' }, '/tmp/pi/work')).toBe(
      '/tmp/pi/agent/sessions/--tmp-pi-work--',
    );
    expect(pi.dir({ HOME: '/h' }, '/w')).toBe('/h/.pi/agent/sessions/--w--');
    expect(codex.dir({ HOME: '/h', CODEX_HOME: '~/codex-home' }, '/w')).toBe('/h/codex-home/sessions');
  });

  it("knows omp's session root, PI_CODING_AGENT_DIR or ~/.omp/agent, as OMP 18.3.4 documents it [TM-112]", () => {
    const omp = TRANSCRIPT_SOURCES.omp;
    if (omp.kind !== 'unavailable') throw new Error('omp is not read');
    expect(omp.sessionRoot?.({ HOME: '/h' })).toBe('/h/.omp/agent/sessions');
    expect(omp.sessionRoot?.({ HOME: '/h', PI_CODING_AGENT_DIR: '/srv/omp' })).toBe('/srv/omp/sessions');
  });
});

describe('runs record what their agent did', () => {
  let fakes: ReturnType<typeof fakeAgents>;
  let instance: ReturnType<typeof tempDir>;
  let home: ReturnType<typeof tempDir>;
  const supervisors: Supervisor[] = [];

  beforeEach(() => {
    fakes = fakeAgents();
    instance = tempDir('runner-instance-');
    home = tempDir('runner-home-');
  });
  afterEach(async () => {
    for (const s of supervisors.splice(0)) await s.stop();
    fakes.cleanup();
    instance.cleanup();
    home.cleanup();
  });

  function supervisor(harness: Record<string, unknown>) {
    const config = mustLoad({
      harnesses: [
        {
          id: 'h',
          workdir: fakes.dir,
          ...harness,
          env: { FAKE_RECORD_DIR: fakes.records, ...(harness.env as object) },
        },
      ],
    });
    const s = new Supervisor(config, {
      instanceDir: instance.path,
      env: { PATH: fakes.path, HOME: home.path },
      log: () => undefined,
    });
    supervisors.push(s);
    return s;
  }

  it('a pi run is observed in the agent directory its env names: final message, tool calls and tokens in the record [TM-113] [TM-122]', async () => {
    const agentDir = join(home.path, 'relocated-pi');
    const s = supervisor({
      kind: 'pi',
      prompt: 'List the files',
      env: {
        PI_CODING_AGENT_DIR: agentDir,
        FAKE_TRANSCRIPT: PI,
        FAKE_TRANSCRIPT_TO: join(
          agentDir,
          'sessions',
          `--${fakes.dir.slice(1).replaceAll('/', '-')}--`,
          's.jsonl',
        ),
      },
    });
    const run = await s.runNow('h');
    expect(run.status).toBe('succeeded');
    const stored = s.store.get(run.id);
    expect(stored?.observation).toMatchObject({
      status: 'read',
      source: 'pi',
      final_message: 'The tool said hello-from-tool. Done.',
      tool_calls: 1,
      tools: { bash: 1 },
      tokens: { input: 1713, output: 49 },
    });
  });

  it('a command harness is observed through the adapter its transcripts names [TM-86] [TM-121]', async () => {
    const s = supervisor({
      kind: 'command',
      argv: [join(fakes.bin, 'record')],
      transcripts: 'claude-code',
      env: {
        FAKE_TRANSCRIPT: CLAUDE,
        FAKE_TRANSCRIPT_TO: join(
          home.path,
          '.claude',
          'projects',
          fakes.dir.replace(/[^A-Za-z0-9]/g, '-'),
          'x.jsonl',
        ),
      },
    });
    const run = await s.runNow('h');
    expect(s.store.get(run.id)?.observation).toMatchObject({
      status: 'read',
      source: 'claude-code',
      tool_calls: 6,
    });
  });

  it('a codex run is matched by the working directory its rollout names, among dated folders [TM-121]', async () => {
    // The recorded rollout names another directory: a copy naming this run's is the run's own.
    const own = join(home.path, 'own.jsonl');
    writeFileSync(
      own,
      text(CODEX).replace('"cwd":"/redacted/path/ea96e59ed9"', `"cwd":${JSON.stringify(fakes.dir)}`),
    );
    const sessions = join(home.path, '.codex', 'sessions', '2026', '12', '01');
    mkdirSync(sessions, { recursive: true });
    // Another project's rollout, written during the run too, is not this run's.
    writeFileSync(join(sessions, 'rollout-other.jsonl'), text(CODEX));
    const s = supervisor({
      kind: 'codex',
      prompt: 'Summarise',
      env: { FAKE_TRANSCRIPT: own, FAKE_TRANSCRIPT_TO: join(sessions, 'rollout-own.jsonl') },
    });
    const run = await s.runNow('h');
    const observation = s.store.get(run.id)?.observation;
    expect(observation).toMatchObject({ status: 'read', source: 'codex', tool_calls: 5 });
    expect(observation?.status === 'read' && observation.file).toBe(join(sessions, 'rollout-own.jsonl'));
  });

  it('a transcript older than the run is not taken for it: the record says none was found', async () => {
    const dir = join(home.path, '.pi', 'agent', 'sessions', `--${fakes.dir.slice(1).replaceAll('/', '-')}--`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'old.jsonl'), text(PI));
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir, 'old.jsonl'), old, old);
    const s = supervisor({ kind: 'pi', prompt: 'List the files' });
    const run = await s.runNow('h');
    expect(s.store.get(run.id)?.observation).toMatchObject({
      status: 'not_found',
      source: 'pi',
      message: expect.stringContaining(`no pi transcript for ${fakes.dir}`),
    });
  });

  it('an omp run records that omp is not observed, and why [TM-118]', async () => {
    const s = supervisor({ kind: 'omp', prompt: 'hi' });
    const run = await s.runNow('h');
    expect(s.store.get(run.id)?.observation).toMatchObject({ status: 'unavailable', source: 'omp' });
  });

  it('a command harness without transcripts records no observation', async () => {
    const s = supervisor({ kind: 'command', argv: [join(fakes.bin, 'record')] });
    const run = await s.runNow('h');
    expect(s.store.get(run.id)?.observation).toBeNull();
  });

  it('a runs.db from before observation opens, gains the column and keeps its runs', () => {
    const file = join(instance.path, 'old-runs.db');
    const old = new RunStore(file);
    old.db.exec('ALTER TABLE runs DROP COLUMN observation');
    old.db
      .prepare(
        "INSERT INTO runs (id, harness, status, trigger, created_at) VALUES ('r1', 'h', 'succeeded', 'manual', 'x')",
      )
      .run();
    old.close();
    const reopened = new RunStore(file);
    expect(reopened.get('r1')).toMatchObject({ id: 'r1', status: 'succeeded', observation: null });
    reopened.close();
  });
});
