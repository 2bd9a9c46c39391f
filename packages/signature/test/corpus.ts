// The corpus: real tool schemas (MCP servers' tools/list) and real manifest rows, as fixtures in
// test/fixtures/<kind>/<case>.json, each with a `source` header naming where it came from.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SignatureInput } from '@harness/signature';

/** One command of the corpus: what the signature is read from, and what MCP would send for it. */
export interface CorpusCommand {
  /** `<kind>/<case>` of the fixture it came from. */
  readonly fixture: string;
  readonly input: SignatureInput;
  readonly title: string;
  readonly description: string;
  /** The command as MCP `tools/list` sends it: `{name, description?, inputSchema}`. */
  readonly mcpTool: Record<string, unknown>;
}

const fixturesDir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** Every fixture file as `<kind>/<case>`, sorted. */
export function fixtureNames(): string[] {
  return readdirSync(fixturesDir)
    .sort()
    .flatMap((kind) =>
      readdirSync(join(fixturesDir, kind))
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => `${kind}/${f.slice(0, -'.json'.length)}`),
    );
}

/** The parsed fixture, header included. */
export function readFixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(fixturesDir, `${name}.json`), 'utf8')) as Record<string, unknown>;
}

type Row = Record<string, unknown>;

/** The commands of one fixture. MCP tools: outputs are the `outputSchema`'s properties; the
 * annotations are hints, not declarations, so no effect is read from them. */
export function corpusCommands(name: string): CorpusCommand[] {
  const fixture = readFixture(name);
  if (Array.isArray(fixture.tools)) {
    return (fixture.tools as Row[]).map((t) => {
      const out = t.outputSchema as Row | undefined;
      const props = out?.properties as Row | undefined;
      return {
        fixture: name,
        input: {
          name: t.name,
          inputSchema: t.inputSchema,
          ...(props ? { outputs: Object.keys(props) } : {}),
        },
        title: typeof t.title === 'string' ? t.title : String(t.name),
        description: typeof t.description === 'string' ? t.description : '',
        mcpTool: {
          name: t.name,
          ...(typeof t.description === 'string' ? { description: t.description } : {}),
          inputSchema: t.inputSchema,
        },
      };
    });
  }
  return (fixture.commands as Row[]).map((r) => ({
    fixture: name,
    input: { name: r.id, inputSchema: r.inputs, outputs: r.outputs, effect: r.effect, scope: r.scope },
    title: String(r.title),
    description: String(r.help),
    mcpTool: { name: r.id, description: String(r.help), inputSchema: r.inputs },
  }));
}

/** The whole corpus, fixture by fixture. */
export function corpus(): CorpusCommand[] {
  return fixtureNames().flatMap(corpusCommands);
}
