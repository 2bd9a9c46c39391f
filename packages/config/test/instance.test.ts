// The one choice of an instance directory (`harness`, `loom`), and the command line a person copies
// to approve a call on it: a real shell reads the line back into exactly the words it was made of.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect, it } from 'vitest';
import {
  approveCommand,
  commandLine,
  instanceArgs,
  instanceLocation,
  instancesHome,
  isDataDirInstance,
  projectInstance,
} from '../src/instance';

const HOME = '/home/ann';

describe('instanceLocation', () => {
  it('takes --instance first, resolved against the working directory', () => {
    expect(instanceLocation({ flag: 'here', env: { HOME, HARNESS_HOME: '/h' } })).toEqual({
      instanceDir: resolve('here'),
      chosenBy: '--instance',
    });
  });

  it('takes $HARNESS_HOME without a flag, and an empty one counts as unset', () => {
    expect(instanceLocation({ env: { HOME, HARNESS_HOME: '/h' } })).toEqual({
      instanceDir: '/h',
      chosenBy: 'HARNESS_HOME',
    });
    expect(instanceLocation({ env: { HOME, HARNESS_HOME: '' } }).chosenBy).toBe('default');
  });

  it("takes the project's instance after $HARNESS_HOME and before the default", () => {
    const project = '/home/ann/.local/share/harness/app-12345678';
    expect(instanceLocation({ env: { HOME }, project })).toEqual({
      instanceDir: project,
      chosenBy: 'project',
    });
    expect(instanceLocation({ env: { HOME, HARNESS_HOME: '/h' }, project }).chosenBy).toBe('HARNESS_HOME');
    expect(instanceLocation({ flag: '/i', env: { HOME }, project }).chosenBy).toBe('--instance');
  });

  it('falls back to ~/.local/share/harness/default, or $XDG_DATA_HOME/harness/default', () => {
    expect(instanceLocation({ env: { HOME } })).toEqual({
      instanceDir: '/home/ann/.local/share/harness/default',
      chosenBy: 'default',
    });
    expect(instanceLocation({ env: { HOME, XDG_DATA_HOME: '/data' } }).instanceDir).toBe(
      '/data/harness/default',
    );
  });
});

describe('projectInstance', () => {
  it('names a project by its directory name and a hash of its path, under the data directory', () => {
    const dir = projectInstance('/work/My App', { HOME });
    expect(dir).toMatch(/^\/home\/ann\/\.local\/share\/harness\/my-app-[0-9a-f]{8}$/);
    expect(projectInstance('/work/My App', { HOME, XDG_DATA_HOME: '/data' })).toBe(
      dir.replace('/home/ann/.local/share', '/data'),
    );
    expect(projectInstance('/other/My App', { HOME })).not.toBe(dir);
    expect(isDataDirInstance(dir, { HOME })).toBe(true);
  });
});

describe('instanceArgs', () => {
  it('names no instance when the default one is meant and HARNESS_HOME is unset', () => {
    expect(instanceArgs('/home/ann/.local/share/harness/default', { HOME })).toEqual([]);
  });

  it('names the instance when it is another directory, or HARNESS_HOME is set where the line is typed', () => {
    expect(instanceArgs('/srv/i', { HOME })).toEqual(['--instance', '/srv/i']);
    expect(instanceArgs('/h', { HOME, HARNESS_HOME: '/h' })).toEqual(['--instance', '/h']);
    expect(instanceArgs('/home/ann/.local/share/harness/default', { HOME, HARNESS_HOME: '/h' })).toEqual([
      '--instance',
      '/home/ann/.local/share/harness/default',
    ]);
  });
});

describe('instancesHome and isDataDirInstance', () => {
  it('is the directory of the default instance, and holds the instances directly under it', () => {
    expect(instancesHome({ HOME })).toBe('/home/ann/.local/share/harness');
    expect(isDataDirInstance('/home/ann/.local/share/harness/repo-1', { HOME })).toBe(true);
    expect(isDataDirInstance('/home/ann/.local/share/harness', { HOME })).toBe(false);
    expect(isDataDirInstance('/srv/i', { HOME })).toBe(false);
  });
});

describe('approveCommand', () => {
  it('is `harness approvals approve <id>` on the default instance, with a quoted --instance elsewhere', () => {
    expect(approveCommand('apr-1', '/home/ann/.local/share/harness/default', { HOME }).line).toBe(
      'harness approvals approve apr-1',
    );
    expect(approveCommand('apr-1', "/tmp/ann's instance", { HOME })).toEqual({
      argv: ['harness', 'approvals', 'approve', 'apr-1', '--instance', "/tmp/ann's instance"],
      line: `harness approvals approve apr-1 --instance '/tmp/ann'\\''s instance'`,
    });
  });

  it('names no instance beside the default one, as harness init creates them: the id alone finds it', () => {
    expect(approveCommand('apr-1', '/home/ann/.local/share/harness/repo-996487c0', { HOME }).line).toBe(
      'harness approvals approve apr-1',
    );
    expect(approveCommand('apr-1', '/data/harness/repo-1', { HOME, XDG_DATA_HOME: '/data' }).line).toBe(
      'harness approvals approve apr-1',
    );
    // HARNESS_HOME in serve's environment would be in the person's shell too rarely to count on.
    expect(
      approveCommand('apr-1', '/home/ann/.local/share/harness/repo-1', { HOME, HARNESS_HOME: '/x' }).line,
    ).toBe('harness approvals approve apr-1 --instance /home/ann/.local/share/harness/repo-1');
    expect(approveCommand('apr-1', '/home/ann/.local/share/harness/a/b', { HOME }).line).toBe(
      'harness approvals approve apr-1 --instance /home/ann/.local/share/harness/a/b',
    );
  });

  it('names no instance for a backend that has none', () => {
    expect(approveCommand('apr-1', undefined, { HOME }).line).toBe('harness approvals approve apr-1');
  });
});

// Any character but NUL (which no argv word holds): controls, quotes, `$`, spaces, non-ASCII text.
const wordChar = fc.oneof(
  fc.integer({ min: 1, max: 127 }).map((c) => String.fromCharCode(c)),
  fc.constantFrom("'", '"', '$', '`', '\\', '!', '*', ' ', '\n', '~', '#'),
  fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' }),
);

describe('commandLine', () => {
  // One sh per run: each line is read back by a real POSIX shell, which prints every word it split.
  test.prop([fc.array(fc.string({ minLength: 1, unit: wordChar }), { minLength: 1, maxLength: 4 })], {
    numRuns: fcRuns(40),
  })('is split by sh into exactly the words it was made of', (words) => {
    const printed = execFileSync('sh', ['-c', `printf '%s\\0' ${commandLine(words)}`], { encoding: 'utf8' });
    expect(printed.split('\0').slice(0, -1)).toEqual(words);
  });
});
