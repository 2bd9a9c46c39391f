#!/usr/bin/env node
// A FAKE agent CLI for tests (it stands in for claude, codex, crush, pi, omp and any command): it
// records its argv, the exact stdin bytes, its environment and what `test -t` says of fds 0, 1 and 2
// to $FAKE_RECORD_DIR/$HARNESS_RUN_ID.json, then prints FAKE_OUTPUT (if set) and exits FAKE_EXIT.
// With FAKE_TRANSCRIPT (a recorded transcript) and FAKE_TRANSCRIPT_TO (a path), it also writes that
// transcript where the real agent would write its own.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';

const tty = {};
for (const fd of [0, 1, 2])
  tty[fd] = spawnSync('sh', ['-c', `test -t ${fd}`], { stdio: 'inherit' }).status === 0;
const ctty = spawnSync('sh', ['-c', 'ps -o tty= -p $$'], { stdio: ['ignore', 'pipe', 'ignore'] })
  .stdout.toString()
  .trim();
const skipStdin = process.env.FAKE_SKIP_STDIN === '1';
const stdin = skipStdin || tty[0] ? Buffer.alloc(0) : readFileSync(0);
const record = {
  name: basename(process.argv[1]),
  argv: process.argv.slice(2),
  stdin: stdin.toString('base64'),
  env: process.env,
  tty,
  ctty,
  promptFileMode: process.env.HARNESS_PROMPT_FILE
    ? spawnSync('stat', ['-c', '%a', process.env.HARNESS_PROMPT_FILE]).stdout.toString().trim()
    : undefined,
  promptFileText: process.env.HARNESS_PROMPT_FILE
    ? readFileSync(process.env.HARNESS_PROMPT_FILE, 'utf8')
    : undefined,
};
writeFileSync(`${process.env.FAKE_RECORD_DIR}/${process.env.HARNESS_RUN_ID}.json`, JSON.stringify(record));
if (process.env.FAKE_TRANSCRIPT && process.env.FAKE_TRANSCRIPT_TO) {
  mkdirSync(dirname(process.env.FAKE_TRANSCRIPT_TO), { recursive: true });
  copyFileSync(process.env.FAKE_TRANSCRIPT, process.env.FAKE_TRANSCRIPT_TO);
}
if (process.env.FAKE_OUTPUT) process.stdout.write(process.env.FAKE_OUTPUT);
process.exit(Number(process.env.FAKE_EXIT ?? '0'));
