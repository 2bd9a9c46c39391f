#!/usr/bin/env node
// Builds the MCP bundle (.mcpb) of @harness/cli that Claude Desktop installs in one click
// (docs/bundle.md). Nothing is published: the bundle is built and checked, as the npm tarballs are.
//
//   node apps/cli/scripts/build-bundle.mjs [--out <dir>] [--mcpb <path of @anthropic-ai/mcpb's cli.js>]
//
// After `pnpm build`. The packages are packed as they would be published (`pnpm pack`, which turns
// workspace: and catalog: ranges into versions), and the CLI is installed from those tarballs with
// `npm install --omit=dev` into a staging folder: the bundle holds what a user's `npm install
// @harness/cli` would, nothing of the clone. Then manifest.json, `mcpb validate` and `mcpb pack`.
// The bundle carries native modules (better-sqlite3, node-pty) built for this platform and this
// Node.js ABI: build it on each platform it is for.
//
// @anthropic-ai/mcpb is no dependency of any package: it is installed once into a cache folder
// ($XDG_CACHE_HOME or ~/.cache, harness-mcp-servers/@anthropic-ai/mcpb@<version>), unless --mcpb
// names an installed one.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** A variable of the manifest, `${name}`, substituted by the client that installs the bundle. */
const variable = (name) => `$\{${name}}`;

export const MCPB_VERSION = '2.1.2';
// The manifest version: 0.3 is the one @anthropic-ai/mcpb 2.1.2 publishes as its
// mcpb-manifest-latest.schema.json (its validator also knows 0.4, which adds only the `uv` server type).
export const MANIFEST_VERSION = '0.3';

const appDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(appDir, '..', '..');

/** The tools `harness serve` lists with the embedded default, as the manifest names them. */
export const BUNDLE_TOOLS = [
  { name: 'list_commands', description: 'The commands this agent may run, with their arguments.' },
  {
    name: 'run_command',
    description: 'Run one declared command (or a batch); strict ones wait for approval.',
  },
  { name: 'run_read_command', description: 'Run a read-only declared command, confined where possible.' },
  { name: 'loom_compose', description: 'Compose a loom program from the declared commands.' },
  { name: 'loom_inspect', description: 'Inspect a composed loom program before it runs.' },
  { name: 'loom_authoring_context', description: 'What an author of loom programs needs to know here.' },
];

function run(file, args, options = {}) {
  return execFileSync(file, args, {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 900_000,
    ...options,
  });
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Every workspace package by name: its directory and manifest. */
function workspacePackages() {
  const found = new Map();
  for (const group of ['packages', 'apps']) {
    const base = join(repoRoot, group);
    for (const name of readdirSync(base)) {
      const file = join(base, name, 'package.json');
      if (existsSync(file)) {
        const manifest = readJson(file);
        found.set(manifest.name, { dir: join(base, name), manifest });
      }
    }
  }
  return found;
}

/** @harness/cli and every workspace package it needs at run time (dependencies, transitively). */
function runtimeClosure(packages) {
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name) || !packages.has(name)) return;
    seen.add(name);
    for (const dep of Object.keys(packages.get(name).manifest.dependencies ?? {})) visit(dep);
  };
  visit('@harness/cli');
  return [...seen].map((name) => ({ name, ...packages.get(name) }));
}

/** The installed @anthropic-ai/mcpb cli.js: `given`, else the cached install, made when missing. */
export function mcpbCli(given) {
  if (given !== undefined) return resolve(given);
  const base = process.env.XDG_CACHE_HOME?.trim() ? process.env.XDG_CACHE_HOME : join(homedir(), '.cache');
  const dir = join(base, 'harness-mcp-servers', `@anthropic-ai/mcpb@${MCPB_VERSION}`);
  const entry = join(dir, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
  if (existsSync(entry)) return entry;
  const staging = `${dir}.partial-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  try {
    run('npm', [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      '--prefix',
      staging,
      `@anthropic-ai/mcpb@${MCPB_VERSION}`,
    ]);
    // The marker @harness/test-utils' installServer writes: the tests then take this install as whole.
    writeFileSync(
      join(staging, '.harness-installed.json'),
      `${JSON.stringify({ name: '@anthropic-ai/mcpb', version: MCPB_VERSION, entry: 'dist/cli/cli.js' })}\n`,
    );
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return entry;
}

/** The bundle's manifest.json for the CLI of `version`. */
export function bundleManifest(cli) {
  const entry = 'node_modules/@harness/cli/bin/harness.js';
  return {
    manifest_version: MANIFEST_VERSION,
    name: 'harness',
    display_name: 'harness',
    version: cli.version,
    description:
      'Governed commands for AI agents: declared packs, approvals, confinement and a signed audit log.',
    long_description:
      'harness serves the commands a workspace file declares to the model: each with its arguments typed and checked, strict ones held for your approval (asked in Claude when it supports elicitation), read-only ones confined where the system allows, every call in a signed audit log. Choose the workspace file and the directory where its instance (store, audit key, approvals) lives.',
    author: { name: 'harness-commands' },
    license: cli.license,
    keywords: ['mcp', 'commands', 'approvals', 'sandbox', 'audit'],
    server: {
      type: 'node',
      entry_point: entry,
      mcp_config: {
        command: 'node',
        args: [
          `${variable('__dirname')}/${entry}`,
          'serve',
          '--workspace',
          variable('user_config.workspace'),
          '--instance',
          variable('user_config.instance'),
        ],
        env: {},
      },
    },
    tools: BUNDLE_TOOLS,
    compatibility: {
      platforms: [process.platform],
      runtimes: { node: cli.engines?.node ?? '>=20' },
    },
    user_config: {
      workspace: {
        type: 'file',
        title: 'Workspace file',
        description:
          'The workspace (YAML) that declares the command packs and the agent Claude acts as. The instance is created with it and keeps it.',
        required: true,
      },
      instance: {
        type: 'directory',
        title: 'Instance directory',
        description:
          'Where this instance lives: its store, audit key, credentials and approvals. Decide pending approvals with `harness approvals list --instance <this directory>` or `harness console --instance <this directory>`.',
        required: true,
        default: `${variable('HOME')}/.local/share/harness/claude-desktop`,
      },
    },
  };
}

/**
 * Builds the bundle into `out`: `out/harness` (the staged folder, kept: it is what the bundle
 * holds) and `out/harness-<version>.mcpb`. Answers both paths and what `mcpb validate` printed.
 */
export function buildBundle({ out, mcpb }) {
  const packages = workspacePackages();
  const needed = runtimeClosure(packages);
  const unbuilt = needed.filter(({ dir }) => !existsSync(join(dir, 'dist')));
  if (unbuilt.length > 0) {
    throw new Error(`not built: ${unbuilt.map((p) => p.name).join(', ')}; run pnpm build first`);
  }
  rmSync(out, { recursive: true, force: true });
  const tgz = join(out, 'tarballs');
  const stage = join(out, 'harness');
  mkdirSync(tgz, { recursive: true });
  mkdirSync(stage, { recursive: true });

  // The tarballs, as published: one pnpm for all of them.
  run(
    'npx',
    [
      '-y',
      'pnpm@10',
      '-r',
      ...needed.flatMap((p) => ['--filter', p.name]),
      'pack',
      '--pack-destination',
      tgz,
    ],
    { cwd: repoRoot },
  );
  const tarballs = needed.map(({ manifest }) =>
    join(tgz, `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`),
  );
  for (const file of tarballs) if (!existsSync(file)) throw new Error(`pnpm pack made no ${file}`);

  // npm install of the tarballs: the CLI's production dependencies, flat, no symlinks. The native
  // SQLite addon's install script compiles SQLite for minutes (or downloads a prebuilt binary from
  // a host CI may not reach): scripts are skipped, and the addon the clone built for this Node is
  // copied in when the versions match, else npm rebuilds it.
  writeFileSync(join(stage, 'package.json'), '{ "name": "harness-bundle", "private": true }\n');
  run(
    'npm',
    ['install', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', ...tarballs],
    { cwd: stage },
  );
  const installedSqlite = join(stage, 'node_modules', 'better-sqlite3');
  const cloneSqlite = dirname(
    createRequire(join(appDir, 'package.json')).resolve('better-sqlite3/package.json'),
  );
  const addon = join(cloneSqlite, 'build', 'Release', 'better_sqlite3.node');
  if (
    readJson(join(installedSqlite, 'package.json')).version ===
      readJson(join(cloneSqlite, 'package.json')).version &&
    existsSync(addon)
  ) {
    mkdirSync(join(installedSqlite, 'build', 'Release'), { recursive: true });
    copyFileSync(addon, join(installedSqlite, 'build', 'Release', 'better_sqlite3.node'));
  } else {
    run('npm', ['rebuild', 'better-sqlite3'], { cwd: stage });
  }
  rmSync(join(stage, 'package-lock.json'), { force: true });

  const cli = readJson(join(stage, 'node_modules', '@harness', 'cli', 'package.json'));
  writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify(bundleManifest(cli), null, 2)}\n`);

  const mcpbEntry = mcpbCli(mcpb);
  const validated = run(process.execPath, [mcpbEntry, 'validate', join(stage, 'manifest.json')]);
  const bundle = join(out, `harness-${cli.version}.mcpb`);
  run(process.execPath, [mcpbEntry, 'pack', stage, bundle]);
  if (!existsSync(bundle)) throw new Error(`mcpb pack made no ${bundle}`);
  rmSync(tgz, { recursive: true, force: true });
  return { stage, bundle, validated };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, mcpb: { type: 'string' } },
  });
  try {
    const built = buildBundle({
      out: resolve(values.out ?? join(appDir, 'bundle')),
      mcpb: values.mcpb,
    });
    process.stdout.write(`${built.validated.trim()}\nbundle: ${built.bundle}\n`);
  } catch (error) {
    const detail = error.stderr ? `\n${error.stdout ?? ''}${error.stderr}` : '';
    process.stderr.write(`build-bundle: ${error.message}${detail}\n`);
    process.exitCode = 1;
  }
}
