// A small git project for an agent to work in: two commits, a file whose every line changed (a diff
// of about 200 lines), and a staged new file for a commit to record.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file whose 100 lines all changed since the last commit: `git diff` shows 200 of them. */
export const CHANGED_FILE = 'lines.txt';
/** The staged new file the agent commits. */
export const STAGED_FILE = 'NOTES.md';
/** The subjects of the project's commits, newest first. */
export const PROJECT_COMMITS = ['Add the line list', 'Start the project'] as const;

const numbered = (prefix: string) => Array.from({ length: 100 }, (_, i) => `${prefix} ${i + 1}`);
/** The lines of {@link CHANGED_FILE} as committed. */
export const ORIGINAL_LINES: readonly string[] = numbered('line');
/** The lines of {@link CHANGED_FILE} in the working tree: every one changed. */
export const CHANGED_LINES: readonly string[] = numbered('changed line');

/** Creates the project in `dir` (made if missing): `git init`, two commits, a change and a staged file. */
export function makeProject(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => gitIn(dir, ...args);
  git('init', '-q', '-b', 'main');
  // The identity the standard git pack's commit reads from the repository's own config.
  git('config', 'user.name', 'Project Owner');
  git('config', 'user.email', 'owner@example.com');
  writeFileSync(join(dir, 'README.md'), '# project\n');
  git('add', 'README.md');
  git('commit', '-q', '-m', PROJECT_COMMITS[1]);
  writeFileSync(join(dir, CHANGED_FILE), `${ORIGINAL_LINES.join('\n')}\n`);
  git('add', CHANGED_FILE);
  git('commit', '-q', '-m', PROJECT_COMMITS[0]);
  writeFileSync(join(dir, CHANGED_FILE), `${CHANGED_LINES.join('\n')}\n`);
  writeFileSync(join(dir, STAGED_FILE), '# Notes\n\nWhat the project is for.\n');
  git('add', STAGED_FILE);
}

/** `git` run in `dir` with no system or global config; its stdout. */
export function gitIn(dir: string, ...args: string[]): string {
  const env = { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  return execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' });
}
