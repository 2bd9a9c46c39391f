// apps/cli/server.json, the entry the MCP Registry would list for @harness/cli: valid against the
// registry's published JSON Schema (2025-12-11, committed as a fixture: the registry cannot be
// reached from tests), of the same version as the package, under the package's mcpName, and naming
// only flags and variables `harness serve` takes.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { appDir, runCli, sandbox } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());

const SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
// The sha256 of the file served at SCHEMA_URL: the fixture is that file byte for byte. A newer
// schema is a deliberate change: replace the fixture, this pin and server.json's $schema together.
const SCHEMA_SHA256 = '3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0';

const schemaBytes = readFileSync(join(appDir, 'test', 'fixtures', 'registry', 'server.schema.json'));
const schema = JSON.parse(schemaBytes.toString('utf8')) as Record<string, unknown>;
const pkg = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  mcpName?: string;
};

interface Argument {
  type: 'named' | 'positional';
  name?: string;
  value?: string;
}
interface Entry {
  registryType: string;
  identifier: string;
  version: string;
  transport: { type: string; url?: string; headers?: { name: string; value?: string; isSecret?: boolean }[] };
  packageArguments?: Argument[];
  environmentVariables?: { name: string; isSecret?: boolean }[];
}
interface ServerJson {
  $schema: string;
  name: string;
  version: string;
  description: string;
  packages: Entry[];
}

const serverJson = (): ServerJson => JSON.parse(readFileSync(join(appDir, 'server.json'), 'utf8'));

/** The registry schema compiled with ajv (draft-07; `uri` checked as a URL node can parse). */
function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  return ajv.compile(schema);
}

describe('server.json for the MCP Registry', () => {
  it('is the registry schema 2025-12-11 byte for byte', () => {
    expect(createHash('sha256').update(schemaBytes).digest('hex')).toBe(SCHEMA_SHA256);
    expect(schema.$id).toBe(SCHEMA_URL);
  });

  it('validates against the registry schema, which rejects a broken entry', () => {
    const validate = validator();
    const doc = serverJson();
    expect(doc.$schema).toBe(SCHEMA_URL);
    expect(validate(doc), JSON.stringify(validate.errors, null, 2)).toBe(true);

    // The same validator fails an entry the registry would refuse: it can fail.
    const broken = structuredClone(doc);
    broken.description = 'x'.repeat(101);
    const { transport: _dropped, ...withoutTransport } = doc.packages[0] as Entry;
    broken.packages[0] = withoutTransport as Entry;
    broken.packages[1] = { ...broken.packages[1], version: 'latest' } as Entry;
    expect(validate(broken)).toBe(false);
    const paths = (validate.errors ?? []).map((e) => e.instancePath);
    expect(paths).toEqual(expect.arrayContaining(['/description', '/packages/0', '/packages/1/version']));
  });

  it('names the package by its mcpName and carries its version', () => {
    const doc = serverJson();
    expect(pkg.mcpName).toMatch(/^io\.github\.[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/);
    expect(doc.name).toBe(pkg.mcpName);
    expect(doc.version).toBe(pkg.version);
    for (const entry of doc.packages) {
      expect(entry.registryType).toBe('npm');
      expect(entry.identifier).toBe(pkg.name);
      expect(entry.version).toBe(pkg.version);
    }
  });

  it('offers stdio via npx and the HTTP transport with its bearer token as a secret header', () => {
    const doc = serverJson();
    const stdio = doc.packages.find((p) => p.transport.type === 'stdio');
    expect(stdio?.packageArguments?.[0]).toMatchObject({ type: 'positional', value: 'serve' });
    const http = doc.packages.find((p) => p.transport.type === 'streamable-http');
    expect(http?.transport.url).toBe('http://127.0.0.1:{port}/mcp');
    expect(http?.packageArguments).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: '--http', value: '127.0.0.1:{port}' })]),
    );
    const auth = http?.transport.headers?.find((h) => h.name === 'Authorization');
    expect(auth).toMatchObject({ value: 'Bearer {HARNESS_HTTP_TOKEN}', isSecret: true });
    // The header's variable is the environment variable serve reads its token from, itself secret.
    expect(http?.environmentVariables).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'HARNESS_HTTP_TOKEN', isSecret: true })]),
    );
  });

  it('names only flags and environment variables that harness serve documents', async () => {
    const help = await runCli(['serve', '--help'], { home: box.home });
    expect(help.code).toBe(0);
    const doc = serverJson();
    const flags = doc.packages.flatMap((p) =>
      (p.packageArguments ?? []).filter((a) => a.type === 'named').map((a) => a.name as string),
    );
    expect(flags.length).toBeGreaterThan(0);
    for (const flag of flags) expect(help.stdout, flag).toContain(`${flag} <`);
    const env = doc.packages.flatMap((p) => (p.environmentVariables ?? []).map((v) => v.name));
    for (const name of env) expect(help.stdout, name).toContain(name);
  });
});
