// The parts of `harness init` on their own (src/init): Makefile targets, the JSON and TOML merges on
// layouts the end-to-end test does not write, and how the server is launched.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from '@decimalturn/toml-patch';
import { tempDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { launchFor } from '../src/init/launch';
import { makeTargets } from '../src/init/makefile';
import { mergeJsonEntry } from '../src/init/merge-json';
import { mergeTomlEntry } from '../src/init/merge-toml';
import { yamlScalar } from '../src/init/workspace-writer';

const entry = { command: 'node', args: ['/abs/harness.js', 'serve'] };

describe('makeTargets', () => {
  it('reads rule names and leaves out special, pattern, variable targets and assignments', () => {
    const text = [
      '.PHONY: all build',
      'VERSION := 1.0',
      'FLAGS ::= -O2',
      'URL = http://example.org',
      'all build: deps',
      '\tcompile: not a rule',
      'test::',
      '%.o: %.c',
      '$(OUT): all',
      'define RECIPE',
      'inside: not a rule',
      'endef',
      'docs/site: build',
      'build: again',
    ].join('\n');
    expect(makeTargets(text)).toEqual({ targets: ['all', 'build', 'test', 'docs/site'], skipped: 3 });
  });
});

describe('mergeJsonEntry', () => {
  it('indents a new entry with the file tabs and keeps its CRLF line endings', () => {
    const text = '{\r\n\t"mcpServers": {\r\n\t\t"other": {"command": "x"}\r\n\t}\r\n}\r\n';
    const merged = mergeJsonEntry(text, 'mcpServers', 'harness', entry);
    expect(merged).toMatchObject({ ok: true });
    expect(merged.ok && merged.text).toBe(
      '{\r\n\t"mcpServers": {\r\n\t\t"other": {"command": "x"},\r\n\t\t"harness": {\r\n\t\t\t"command": "node",\r\n\t\t\t"args": [\r\n\t\t\t\t"/abs/harness.js",\r\n\t\t\t\t"serve"\r\n\t\t\t]\r\n\t\t}\r\n\t}\r\n}\r\n',
    );
  });

  it('adds the servers key to a settings file that has none, after its last setting', () => {
    const merged = mergeJsonEntry('{\n    "theme": "dark" // mine\n}\n', 'mcpServers', 'harness', entry);
    expect(merged.ok && merged.text).toBe(
      '{\n    "theme": "dark", // mine\n    "mcpServers": {\n        "harness": {\n            "command": "node",\n            "args": [\n                "/abs/harness.js",\n                "serve"\n            ]\n        }\n    }\n}\n',
    );
  });

  it('fills an empty servers object', () => {
    const merged = mergeJsonEntry('{ "servers": {} }\n', 'servers', 'harness', { command: 'node' });
    expect(merged.ok && JSON.parse(merged.text)).toEqual({ servers: { harness: { command: 'node' } } });
  });

  it('updates our keys of an existing entry in place and keeps the person’s others', () => {
    const text =
      '{\n  "mcpServers": {\n    "harness": {"command": "npx", "args": [], "env": {"A": "1"}}\n  }\n}\n';
    const merged = mergeJsonEntry(text, 'mcpServers', 'harness', entry);
    expect(merged.ok && merged.text).toBe(
      '{\n  "mcpServers": {\n    "harness": {"command": "node", "args": ["/abs/harness.js","serve"], "env": {"A": "1"}}\n  }\n}\n',
    );
    expect(merged.ok && merged.previous).toEqual({ command: 'npx', args: [], env: { A: '1' } });
  });

  it('refuses a servers key that is not an object, saying which', () => {
    expect(mergeJsonEntry('{"mcpServers": []}', 'mcpServers', 'harness', entry)).toEqual({
      ok: false,
      problem: '"mcpServers" is not an object',
    });
  });
});

describe('mergeTomlEntry', () => {
  it('updates an existing [mcp_servers.harness] in place and keeps its env and the comments', () => {
    const text = '# mine\n[mcp_servers.harness]\ncommand = "npx"\nargs = []\nenv = { A = "1" }\n\n# after\n';
    const merged = mergeTomlEntry(text, 'mcp_servers', 'harness', entry);
    expect(merged.ok).toBe(true);
    if (!merged.ok) return;
    expect(merged.text.startsWith('# mine\n[mcp_servers.harness]\n')).toBe(true);
    expect(merged.text.endsWith('env = { A = "1" }\n\n# after\n')).toBe(true);
    expect(JSON.parse(JSON.stringify(parse(merged.text)))).toEqual({
      mcp_servers: { harness: { command: 'node', args: ['/abs/harness.js', 'serve'], env: { A: '1' } } },
    });
  });

  it('adds to servers declared as an inline table, where a new [table] cannot go', () => {
    const text = 'mcp_servers = { other = { command = "x" } }\n';
    const merged = mergeTomlEntry(text, 'mcp_servers', 'harness', entry);
    expect(merged.ok && JSON.parse(JSON.stringify(parse(merged.text)))).toEqual({
      mcp_servers: { other: { command: 'x' }, harness: entry },
    });
  });

  it('returns the text unchanged when the entry already holds these values', () => {
    const text = '[mcp_servers.harness]\ncommand = "node"\nargs = ["/abs/harness.js", "serve"]\n';
    expect(mergeTomlEntry(text, 'mcp_servers', 'harness', entry)).toEqual({
      ok: true,
      text,
      previous: expect.objectContaining({ command: 'node' }),
    });
  });
});

describe('launchFor', () => {
  const box = tempDir('harness-init-launch-');
  afterAll(() => box.cleanup());

  it('runs node on the built entry of a checkout of this repository', () => {
    const root = join(box.path, 'clone');
    mkdirSync(join(root, '.git'), { recursive: true });
    mkdirSync(join(root, 'apps', 'cli', 'dist'), { recursive: true });
    writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages: []\n');
    const entryFile = join(root, 'apps', 'cli', 'dist', 'harness.js');
    writeFileSync(entryFile, '');
    expect(launchFor(entryFile)).toEqual({ form: 'checkout', command: 'node', prefix: [entryFile] });
  });

  it('runs npx on the published package for an installed copy', () => {
    const installed = join(box.path, 'proj', 'node_modules', '@harness', 'cli', 'dist', 'harness.js');
    expect(launchFor(installed)).toEqual({ form: 'npx', command: 'npx', prefix: ['-y', '@harness/cli'] });
  });
});

describe('yamlScalar', () => {
  it('quotes what YAML would read as something else, or cannot read plain', () => {
    expect(['build', 'test:unit', 'true', 'no', '1.0', 'a b', 'docs/site'].map(yamlScalar)).toEqual([
      'build',
      '"test:unit"',
      '"true"',
      '"no"',
      '"1.0"',
      '"a b"',
      'docs/site',
    ]);
  });
});
