// `harness init --import`: the MCP servers the person's clients already start, read from their
// configs, each turned into an `mcp_servers` entry of the workspace. Every value of a server's `env`
// and `headers` is taken for a secret: it moves into the instance's credentials.json and the entry
// names it as `{{credential.NAME}}`. An entry that cannot be mapped faithfully is left where it is,
// with a line saying why.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse as parseToml } from '@decimalturn/toml-patch';
import { type ParseError, parse as parseJsonc, printParseErrorCode } from 'jsonc-parser';
import { type ClientContext, type ClientId, SERVER_NAME } from './clients';
import { removeJsonEntries } from './merge-json';
import { removeTomlEntries } from './merge-toml';

/** A client config init reads servers from. */
export interface ImportSource {
  /** Who reads the file, for a person. */
  readonly name: string;
  readonly format: 'json' | 'toml';
  readonly key: string;
  readonly file: string;
  /** The client whose `harness` entry now reaches what it held. */
  readonly client: ClientId;
}

/** The sources, in the order they are read. */
export function importSources(ctx: ClientContext): ImportSource[] {
  const p = ctx.projectDir;
  return [
    {
      name: 'Claude Code',
      format: 'json',
      key: 'mcpServers',
      file: join(p, '.mcp.json'),
      client: 'claude-code',
    },
    {
      name: 'Cursor',
      format: 'json',
      key: 'mcpServers',
      file: join(p, '.cursor', 'mcp.json'),
      client: 'cursor',
    },
    {
      name: 'VS Code',
      format: 'json',
      key: 'servers',
      file: join(p, '.vscode', 'mcp.json'),
      client: 'vscode',
    },
    {
      name: 'Codex CLI (project)',
      format: 'toml',
      key: 'mcp_servers',
      file: join(p, '.codex', 'config.toml'),
      client: 'codex',
    },
    {
      name: 'Codex CLI',
      format: 'toml',
      key: 'mcp_servers',
      file: join(ctx.env.CODEX_HOME || join(ctx.home, '.codex'), 'config.toml'),
      client: 'codex',
    },
  ];
}

/** One server as the workspace declares it; env and header values are credential templates. */
export interface ImportedServer {
  readonly id: string;
  /** Where it came from: each source file and the name it had there. */
  readonly from: { readonly source: ImportSource; readonly name: string }[];
  readonly transport:
    | { readonly kind: 'stdio'; readonly command: readonly string[]; readonly env: Record<string, string> }
    | { readonly kind: 'http'; readonly url: string; readonly headers: Record<string, string> };
  readonly credentials: readonly string[];
  readonly timeout?: string;
  readonly startTimeout?: string;
  /** The tools a person confirmed only read (after the server listed them): `effects: read` each. */
  readonly reads?: readonly ImportRead[];
  /** Whether init accepted the definitions the server listed (after it listed them). */
  readonly pinned?: boolean;
}

/** A tool of an imported server declared a read, and who confirmed it (the comment beside it). */
export interface ImportRead {
  /** The name the server lists it under: the key of `tools:`. */
  readonly name: string;
  readonly note: string;
}

/** What the import found: the servers, the credentials they need, and what it left where it was. */
export interface ImportPlan {
  readonly servers: readonly ImportedServer[];
  /** Credential name → value: the new ones and those already held with the same value. */
  readonly credentials: ReadonlyMap<string, string>;
  /** Every literal value moved, for masking whatever is shown. */
  readonly secrets: readonly string[];
  /** Per source file, the names of the entries that leave it. */
  readonly removals: ReadonlyMap<string, { source: ImportSource; names: string[] }>;
  /** Lines for a person: each entry left where it is and why, each renamed credential. */
  readonly notes: readonly string[];
  /** Files that cannot be read, each naming the fix. */
  readonly problems: readonly string[];
}

/** A server as read from one source, before ids and credentials are settled. */
interface Read {
  readonly source: ImportSource;
  readonly name: string;
  readonly transport:
    | { kind: 'stdio'; command: string[]; env: Record<string, string> }
    | { kind: 'http'; url: string; headers: Record<string, string> };
  readonly timeout?: string;
  readonly startTimeout?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);

const isStringRecord = (v: unknown): v is Record<string, string> =>
  isObject(v) && Object.values(v).every((x) => typeof x === 'string');

/**
 * Reads every source, maps its servers and settles their ids and credential names. `taken`: ids
 * the workspace already uses (its packs); `held`: the instance's credentials.json as it is.
 */
export function planImport(
  sources: readonly ImportSource[],
  taken: ReadonlySet<string>,
  held: Readonly<Record<string, string>>,
): ImportPlan {
  const notes: string[] = [];
  const problems: string[] = [];
  const reads: Read[] = [];
  for (const source of sources) {
    if (!existsSync(source.file)) continue;
    const entries = readEntries(source, problems);
    if (entries === undefined) continue;
    for (const [name, entry] of Object.entries(entries)) {
      if (name === SERVER_NAME) continue;
      const mapped = mapEntry(entry, source.format);
      if (typeof mapped === 'string')
        notes.push(`not imported: ${name} (${source.file}): ${mapped}; it stays where it is`);
      else reads.push({ source, name, ...mapped });
    }
  }
  const servers: ImportedServer[] = [];
  const credentials = new Map<string, string>();
  const secrets: string[] = [];
  const removals = new Map<string, { source: ImportSource; names: string[] }>();
  const ids = new Set(taken);
  for (const read of reads) {
    const removal = removals.get(read.source.file) ?? { source: read.source, names: [] };
    removals.set(read.source.file, removal);
    removal.names.push(read.name);
    // The same server in two clients is one server, reached by both through harness.
    const twin = servers.find(
      (s) => s.from.some((f) => f.name === read.name) && sameServer(s, read, credentials),
    );
    if (twin !== undefined) {
      twin.from.push({ source: read.source, name: read.name });
      continue;
    }
    const id = freeId(serverId(read.name), ids);
    ids.add(id);
    const names: string[] = [];
    const template = (key: string, value: string): string => {
      const name = credentialName(id, key, value, held, credentials, notes);
      credentials.set(name, value);
      if (!secrets.includes(value)) secrets.push(value);
      names.push(name);
      return `{{credential.${name}}}`;
    };
    const t = read.transport;
    const transport: ImportedServer['transport'] =
      t.kind === 'stdio'
        ? {
            kind: 'stdio',
            command: t.command,
            env: Object.fromEntries(Object.entries(t.env).map(([k, v]) => [k, template(k, v)])),
          }
        : {
            kind: 'http',
            url: t.url,
            headers: Object.fromEntries(Object.entries(t.headers).map(([k, v]) => [k, template(k, v)])),
          };
    servers.push({
      id,
      from: [{ source: read.source, name: read.name }],
      transport,
      credentials: names,
      ...(read.timeout === undefined ? {} : { timeout: read.timeout }),
      ...(read.startTimeout === undefined ? {} : { startTimeout: read.startTimeout }),
    });
  }
  return { servers, credentials, secrets, removals, notes, problems };
}

/** The servers object of a source, or `undefined` (with a problem when it cannot be read). */
function readEntries(source: ImportSource, problems: string[]): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(source.file, 'utf8');
  } catch (error) {
    problems.push(
      `${source.file}: cannot be read (${(error as Error).message}); make it readable, or run without --import`,
    );
    return undefined;
  }
  let root: unknown;
  if (source.format === 'json') {
    const errors: ParseError[] = [];
    root = parseJsonc(text, errors, {
      allowTrailingComma: true,
      disallowComments: false,
      allowEmptyContent: true,
    });
    const first = errors[0];
    if (first !== undefined) {
      problems.push(
        `${source.file}: not valid JSON (${printParseErrorCode(first.error)}); fix it, or run without --import`,
      );
      return undefined;
    }
  } else {
    try {
      root = parseToml(text);
    } catch (error) {
      const why = ((error as Error).message ?? String(error)).split('\n').at(-1);
      problems.push(`${source.file}: not valid TOML (${why}); fix it, or run without --import`);
      return undefined;
    }
  }
  if (root === undefined) return undefined;
  const servers = isObject(root) ? root[source.key] : undefined;
  return isObject(servers) ? servers : undefined;
}

const JSON_KEYS = new Set(['type', 'command', 'args', 'env', 'url', 'headers']);
const TOML_KEYS = new Set([
  'command',
  'args',
  'env',
  'url',
  'http_headers',
  'enabled',
  'startup_timeout_sec',
  'tool_timeout_sec',
]);

/** The entry as a transport, or why it cannot be one. */
function mapEntry(entry: unknown, format: 'json' | 'toml'): Omit<Read, 'source' | 'name'> | string {
  if (!isObject(entry)) return 'the entry is not an object';
  const known = format === 'json' ? JSON_KEYS : TOML_KEYS;
  const other = Object.keys(entry).filter((k) => !known.has(k));
  if (other.length > 0) return `it sets ${other.join(', ')}, which harness has no place for`;
  if (entry.enabled === false) return 'it is disabled in the client';
  const type = entry.type;
  const timeouts: { timeout?: string; startTimeout?: string } = {};
  for (const [key, field] of [
    ['tool_timeout_sec', 'timeout'],
    ['startup_timeout_sec', 'startTimeout'],
  ] as const) {
    const value = entry[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !(value > 0)) return `${key} is not a positive number`;
    timeouts[field] = `${Math.ceil(value)}s`;
  }
  if (typeof entry.command === 'string') {
    if (type !== undefined && type !== 'stdio') return `type "${String(type)}" does not go with a command`;
    const args = entry.args ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string'))
      return 'args is not a list of strings';
    if (/\s/.test(entry.command.trim()) || entry.command.trim() === '')
      return 'command is a shell line, which harness would have to split (give the program alone, its arguments in args)';
    const env = entry.env ?? {};
    if (!isStringRecord(env)) return 'env is not a table of strings';
    const expands = expanding(env);
    if (expands !== undefined) return expands;
    if (args.some((a) => a === '')) return 'an argument is empty, which harness does not pass';
    const named = args.find(secretFlag);
    if (named !== undefined)
      return `argument ${named.split('=')[0]} passes a secret on the command line, where harness never puts one (pass it through env instead)`;
    const badName = Object.keys(env).find((k) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k));
    if (badName !== undefined) return `env name ${JSON.stringify(badName)} is not a variable name`;
    if ([entry.command, ...args].some((a) => a.includes('${') || a.includes('{{')))
      return `an argument holds \${…} or {{…}}, which the client expands and harness does not`;
    return { transport: { kind: 'stdio', command: [entry.command, ...args], env: { ...env } }, ...timeouts };
  }
  if (typeof entry.url === 'string') {
    if (type !== undefined && type !== 'http' && type !== 'streamable-http' && type !== 'streamableHttp')
      return `transport "${String(type)}" is not streamable HTTP, the one harness speaks`;
    const headers = (format === 'json' ? entry.headers : entry.http_headers) ?? {};
    if (!isStringRecord(headers)) return 'headers is not a table of strings';
    const expands = expanding(headers);
    if (expands !== undefined) return expands;
    if (entry.url.includes('${')) return `the url holds \${…}, which the client expands and harness does not`;
    const why = urlProblem(entry.url);
    if (why !== undefined) return why;
    return { transport: { kind: 'http', url: entry.url, headers: { ...headers } }, ...timeouts };
  }
  return 'it has neither a command nor a url';
}

const SECRET_WORDS = new Set([
  'token',
  'key',
  'apikey',
  'secret',
  'password',
  'passwd',
  'auth',
  'pat',
  'credential',
  'credentials',
]);

/** Whether `arg` is a flag naming a secret (`--api-key`, `--token=…`): its value would be one. */
function secretFlag(arg: string): boolean {
  if (!arg.startsWith('-')) return false;
  const name = arg.replace(/^-+/, '').split('=')[0] ?? '';
  return name
    .toLowerCase()
    .split(/[-_.]/)
    .some((word) => SECRET_WORDS.has(word));
}

/**
 * Why a URL cannot go into the workspace: one harness would refuse (not https:, nor http: on
 * loopback), or one carrying a credential (a user and password, a query value named as a secret).
 */
function urlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'the url is not a URL';
  }
  const loopback =
    ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || url.hostname.startsWith('127.');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    return `the url is ${url.protocol}, and harness reaches a server only over https: (or http: on loopback)`;
  if (url.username !== '' || url.password !== '')
    return 'the url carries a user and password, which harness never writes into the workspace (use a header)';
  const secret = [...url.searchParams.keys()].find((k) =>
    k
      .toLowerCase()
      .split(/[-_.]/)
      .some((word) => SECRET_WORDS.has(word)),
  );
  if (secret !== undefined)
    return `the url carries ${secret} in its query, which harness never writes into the workspace (use a header)`;
  return undefined;
}

/** Why values that the client expands cannot be imported as they stand. */
function expanding(values: Record<string, string>): string | undefined {
  const key = Object.keys(values).find((k) => /\$\{|\{\{/.test(values[k] ?? ''));
  return key === undefined
    ? undefined
    : `${key} holds \${…} or {{…}}, which the client expands and harness does not (put its value in the instance's credentials.json by hand)`;
}

/** Whether `read` is the server `server` already is (the same transport, the same values). */
function sameServer(server: ImportedServer, read: Read, credentials: ReadonlyMap<string, string>): boolean {
  const values = (t: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(t).map(([k, v]) => [
        k,
        credentials.get(/^\{\{credential\.(.+)\}\}$/.exec(v)?.[1] ?? '') ?? v,
      ]),
    );
  const s = server.transport;
  const r = read.transport;
  if (s.kind === 'stdio' && r.kind === 'stdio')
    return isDeepStrictEqual([...s.command], r.command) && isDeepStrictEqual(values(s.env), r.env);
  if (s.kind === 'http' && r.kind === 'http')
    return s.url === r.url && isDeepStrictEqual(values(s.headers), r.headers);
  return false;
}

/** A workspace id for a client's server name. */
export function serverId(name: string): string {
  const id = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/-+$/, '');
  return id === '' ? 'server' : id;
}

function freeId(id: string, taken: ReadonlySet<string>): string {
  if (!taken.has(id)) return id;
  let n = 2;
  while (taken.has(`${id}-${n}`)) n++;
  return `${id}-${n}`;
}

/**
 * The credential for `value` of `key`: `<id>_<key>` in credentials.json's pattern. A name already
 * held with the same value is reused; one held with another value is never overwritten: the next free
 * name is taken, and a note says so.
 */
function credentialName(
  id: string,
  key: string,
  value: string,
  held: Readonly<Record<string, string>>,
  chosen: ReadonlyMap<string, string>,
  notes: string[],
): string {
  let base = `${id}_${key}`.toLowerCase().replace(/[^a-z0-9_]+/g, '_');
  if (!/^[a-z]/.test(base)) base = `c_${base}`;
  const holds = (name: string) => held[name] ?? chosen.get(name);
  let name = base;
  let n = 2;
  while (holds(name) !== undefined && holds(name) !== value) name = `${base}_${n++}`;
  if (name !== base && Object.hasOwn(held, base))
    notes.push(
      `credentials.json already holds ${base} with another value, kept as it is; this one is ${name}`,
    );
  return name;
}

/** `text` of a source without the entries `names`, or why it cannot be edited. */
export function removeEntries(
  text: string,
  source: ImportSource,
  names: readonly string[],
): { ok: true; text: string } | { ok: false; problem: string } {
  if (source.format === 'json') return { ok: true, text: removeJsonEntries(text, source.key, names) };
  return removeTomlEntries(text, source.key, names);
}
