// Shared by the runner tests: write a runner file into a temp dir and load it.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { stringify } from 'yaml';
import { loadRunnerConfig, type RunnerLoadResult } from '../src/index';

/** A temp dir holding a runner file written from `doc` (YAML), loaded. */
export function loadDoc(doc: unknown, options: { project?: boolean; files?: Record<string, string> } = {}) {
  const dir = tempDir('runner-test-');
  for (const [name, text] of Object.entries(options.files ?? {})) {
    mkdirSync(join(dir.path, name, '..'), { recursive: true });
    writeFileSync(join(dir.path, name), text);
  }
  const file = join(dir.path, 'runner.yaml');
  writeFileSync(file, typeof doc === 'string' ? doc : stringify(doc));
  const result: RunnerLoadResult = loadRunnerConfig({ file }, { project: options.project === true });
  dir.cleanup();
  return { result, file, dir: dir.path };
}

/** The loaded config, or a test failure listing the issues. */
export function mustLoad(doc: unknown, options: { project?: boolean; files?: Record<string, string> } = {}) {
  const { result } = loadDoc(doc, options);
  if (!result.ok)
    throw new Error(`expected the file to load:\n${result.issues.map((i) => i.message).join('\n')}`);
  return result.config;
}

/** The acceptance example of the runner (docs/runner.md starts from it). */
export function acceptanceYaml(recorder: string): string {
  return `listen: 127.0.0.1:8790              # the webhook receiver; POST /hooks/<source id>
sources:
  - id: gh
    scheme: github                  # github | gitea | forgejo
    secret_env: GH_WEBHOOK_SECRET   # the HMAC secret, read from this environment variable
    trusted_actors: [octocat]
harnesses:
  - id: review
    kind: command
    trigger: { source: gh, events: [pull_request] }
    argv: [/usr/bin/env, node, ${recorder}, "--", "{{event.repo}}", "{{event.number}}", "{{event.file}}"]
    prompt_template: "Review pull request {{event.number}} of {{event.repo}}; the delivery is in {{event.file}}."
    prompt_delivery: stdin
`;
}

/** The FAKE agent CLI (test/fakes/fake-agent.mjs): records argv, stdin bytes, env and `test -t`. */
export const FAKE_AGENT = join(import.meta.dirname, 'fakes', 'fake-agent.mjs');

/** What the fake agent recorded for one run. */
export interface FakeRecord {
  name: string;
  argv: string[];
  stdin: string;
  env: Record<string, string>;
  tty: Record<'0' | '1' | '2', boolean>;
  ctty: string;
  promptFileMode?: string;
  promptFileText?: string;
}

/** A temp dir with a bin/ of FAKE agents named claude, codex, crush, pi, omp, and a records/ dir. */
export function fakeAgents() {
  const dir = tempDir('runner-fakes-');
  const bin = join(dir.path, 'bin');
  const records = join(dir.path, 'records');
  mkdirSync(bin);
  mkdirSync(records);
  for (const name of ['claude', 'codex', 'crush', 'pi', 'omp', 'record'])
    symlinkSync(FAKE_AGENT, join(bin, name));
  return {
    dir: dir.path,
    bin,
    records,
    path: `${bin}:${process.env.PATH}`,
    read(runId: string): FakeRecord {
      return JSON.parse(readFileSync(join(records, `${runId}.json`), 'utf8')) as FakeRecord;
    },
    cleanup: dir.cleanup,
  };
}
