// The MCP bundle (.mcpb) of @harness/cli, as CI builds it with scripts/build-bundle.mjs: the
// packages packed and installed as a user's npm would, a manifest `mcpb validate` passes whose
// user_config asks for the workspace file and the instance directory, packed by `mcpb pack`; then
// the bundle unpacked (`mcpb unpack`, as a client does) and its server started exactly as the
// manifest's mcp_config says, with the user's choices substituted, answering the real MCP SDK client.
// @anthropic-ai/mcpb is installed once into a cache folder, never a dependency of any package.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installServer, needs } from '@harness/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, expect } from 'vitest';
import { appDir, sandbox } from './helpers';

/** A variable of the manifest, `${name}`, substituted by the client that installs the bundle. */
const variable = (name: string): string => `$\{${name}}`;

const script = join(appDir, 'scripts', 'build-bundle.mjs');
const MCPB_VERSION = /MCPB_VERSION = '([^']+)'/.exec(readFileSync(script, 'utf8'))?.[1] ?? 'unknown';
const MCPB = { name: '@anthropic-ai/mcpb', version: MCPB_VERSION, entry: 'dist/cli/cli.js' };

const installed = await installServer(MCPB);
const withMcpb = needs({
  what: `${MCPB.name}@${MCPB.version} installed`,
  present: installed.ok,
  install: installed.ok ? '' : `${installed.reason} (needs npm and the registry once)`,
});
const mcpb = installed.ok ? installed.entry : '';

const box = sandbox();
afterAll(() => box.cleanup());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function node(args: string[], cwd = appDir): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd, timeout: 900_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

interface Manifest {
  name: string;
  version: string;
  server: {
    entry_point: string;
    mcp_config: { command: string; args: string[]; env?: Record<string, string> };
  };
  tools: { name: string }[];
  user_config: Record<string, { type: string; required?: boolean; default?: string }>;
}

withMcpb.it(
  'builds a bundle mcpb validates, whose unpacked server, started as its manifest says, lists and runs the tools',
  async () => {
    const out = join(box.root, 'out');
    const built = await node([script, '--out', out, '--mcpb', mcpb]);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).toContain('Manifest schema validation passes!');
    const version = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')).version as string;
    const bundle = join(out, `harness-${version}.mcpb`);
    expect(existsSync(bundle)).toBe(true);

    // mcpb validate passes on the manifest, and fails one the schema refuses: it can fail.
    const manifestFile = join(out, 'harness', 'manifest.json');
    expect((await node([mcpb, 'validate', manifestFile])).code).toBe(0);
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
    const broken = join(box.root, 'broken-manifest.json');
    writeFileSync(
      broken,
      JSON.stringify({
        ...manifest,
        user_config: { ...manifest.user_config, workspace: { type: 'folder', title: 'Workspace' } },
      }),
    );
    const refused = await node([mcpb, 'validate', broken]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toContain('user_config.workspace');

    // The user is asked for the workspace file and the instance directory, passed to serve.
    expect(manifest.version).toBe(version);
    expect(manifest.user_config.workspace).toMatchObject({ type: 'file', required: true });
    expect(manifest.user_config.instance).toMatchObject({ type: 'directory', required: true });
    const args = manifest.server.mcp_config.args;
    expect(args.slice(1)).toEqual([
      'serve',
      '--workspace',
      variable('user_config.workspace'),
      '--instance',
      variable('user_config.instance'),
    ]);

    // Unpacked as a client does, then started as the manifest says: ${__dirname} is the unpacked
    // folder; the user picked the example workspace the bundle ships and an empty folder.
    const unpacked = join(box.root, 'unpacked');
    const unpack = await node([mcpb, 'unpack', bundle, unpacked]);
    expect(unpack.code, `${unpack.stdout}${unpack.stderr}`).toBe(0);
    expect(existsSync(join(unpacked, manifest.server.entry_point))).toBe(true);
    // The CLI in the bundle is the packed package, which carries the mcpName the registry checks.
    const packed = JSON.parse(
      readFileSync(join(unpacked, 'node_modules', '@harness', 'cli', 'package.json'), 'utf8'),
    ) as { version: string; mcpName?: string };
    const serverJson = JSON.parse(readFileSync(join(appDir, 'server.json'), 'utf8')) as { name: string };
    expect(packed).toMatchObject({ version, mcpName: serverJson.name });
    const workspace = join(
      unpacked,
      'node_modules',
      '@harness',
      'cli',
      'dist',
      'examples',
      'demo',
      'workspace.yaml',
    );
    const instance = join(box.root, 'chosen-instance');
    mkdirSync(instance);
    const substitute = (arg: string) =>
      arg
        .replaceAll(variable('__dirname'), unpacked)
        .replaceAll(variable('user_config.workspace'), workspace)
        .replaceAll(variable('user_config.instance'), instance);
    expect(manifest.server.mcp_config.command).toBe('node');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: args.map(substitute),
      cwd: unpacked,
      env: { PATH: process.env.PATH ?? '', HOME: box.home, ...manifest.server.mcp_config.env },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'bundle-test', version: '0.0.0' });
    try {
      await client.connect(transport);
      const listed = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(listed, stderr).toEqual(manifest.tools.map((t) => t.name).sort());
      // Calls go through the bundled host: its store (the native SQLite addon), the workspace, and
      // a command run by the bundled broker (echo.argv needs nothing but node).
      const listedCommands = await client.callTool({ name: 'list_commands', arguments: {} });
      expect(listedCommands.isError ?? false, JSON.stringify(listedCommands)).toBe(false);
      expect(JSON.stringify(listedCommands.content)).toContain('echo.argv(value: string)');
      const ran = await client.callTool({
        name: 'run_read_command',
        arguments: { command: 'echo.argv', args: { value: 'from the bundle' } },
      });
      expect(ran.isError ?? false, JSON.stringify(ran)).toBe(false);
      expect(JSON.stringify(ran.content)).toContain('from the bundle');
    } finally {
      await client.close();
    }
    // The instance was made in the folder the user chose.
    expect(existsSync(join(instance, 'instance.json'))).toBe(true);
  },
  900_000,
);
