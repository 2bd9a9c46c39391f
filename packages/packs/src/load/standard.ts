// `- standard: <name>` entries of `command_packs`: each is replaced, before the schema sees the file,
// by the bundled pack of that name with the entry's own keys over it (docs/standard-packs.md,
// "Overriding a standard pack"). The merged entry keeps its index in the list, so every issue about
// it is positioned in the workspace file: at the key the entry overrides, or else at the entry itself.
import { parseYamlConfig } from '@harness/config/yaml';
import { describeFound, editDistance, showPath } from '@harness/errors';
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import { listForMessage } from '../lookup';
import { STANDARD_ENTRY_KEYS } from '../schema';
import type { Path, PositionedIssue } from './types';

type Entry = Readonly<Record<string, unknown>>;

function isMap(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Keys merged entry by entry (the workspace's entry for a name wins); every other key is replaced.
const BY_NAME = new Set(['env', 'permission_overrides', 'timeout_overrides']);

/** `requires` merged by binary: the workspace's entry for a binary replaces the bundled one, others are added. */
function mergeRequires(bundled: unknown, own: unknown): unknown {
  if (!Array.isArray(bundled) || !Array.isArray(own)) return own;
  const binaryOf = (r: unknown) => (isMap(r) ? r.binary : undefined);
  const owned = new Set(own.map(binaryOf));
  return [...bundled.filter((r) => !owned.has(binaryOf(r))), ...own];
}

/** `input_overrides` merged per command, per input, field by field. */
function mergeInputOverrides(bundled: unknown, own: unknown): unknown {
  if (!isMap(bundled) || !isMap(own)) return own;
  const out: Record<string, unknown> = { ...bundled };
  for (const [command, inputs] of Object.entries(own)) {
    const base = out[command];
    if (!isMap(base) || !isMap(inputs)) {
      out[command] = inputs;
      continue;
    }
    const merged: Record<string, unknown> = { ...base };
    for (const [input, fields] of Object.entries(inputs)) {
      const b = merged[input];
      merged[input] = isMap(b) && isMap(fields) ? { ...b, ...fields } : fields;
    }
    out[command] = merged;
  }
  return out;
}

/** `sandbox` merged as a command's block is over its pack's: `false` replaces, a block field by field. */
function mergeSandbox(bundled: unknown, own: unknown): unknown {
  if (!isMap(bundled) || !isMap(own)) return own;
  const filesystem =
    isMap(bundled.filesystem) && isMap(own.filesystem)
      ? { ...bundled.filesystem, ...own.filesystem }
      : (own.filesystem ?? bundled.filesystem);
  return { ...bundled, ...own, ...(filesystem === undefined ? {} : { filesystem }) };
}

/**
 * A bundled pack with a workspace entry's keys over it: `id` defaults to the standard pack's name;
 * `env`, `permission_overrides` and `timeout_overrides` merge name by name; `input_overrides` per
 * command, input and field; `sandbox` field by field (`filesystem.read`, `.write`, `.deny` each
 * replaced whole); `requires` by binary; every other key is replaced whole.
 */
export function mergeStandardPack(name: string, bundled: Entry, entry: Entry): Record<string, unknown> {
  const out: Record<string, unknown> = { ...bundled, id: bundled.id ?? name };
  for (const [key, value] of Object.entries(entry)) {
    if (key === 'standard') continue;
    const base = out[key];
    if (BY_NAME.has(key) && isMap(base) && isMap(value)) out[key] = { ...base, ...value };
    else if (key === 'requires') out[key] = mergeRequires(base, value);
    else if (key === 'input_overrides') out[key] = mergeInputOverrides(base, value);
    else if (key === 'sandbox') out[key] = mergeSandbox(base, value);
    else out[key] = value;
  }
  return out;
}

/**
 * The key of an entry that is neither a pack of its own (no `id`, no `commands`) nor a standard one
 * that is within two edits of `standard`: the entry meant to name a standard pack, misspelt.
 */
function misspeltStandard(entry: Entry): string | undefined {
  if (Object.hasOwn(entry, 'id') || Object.hasOwn(entry, 'commands')) return undefined;
  return Object.keys(entry).find((key) => editDistance(key, 'standard') <= 2);
}

/** The one issue a misspelt `standard` gets, at that key, instead of the keys a pack of its own lacks. */
function misspeltStandardIssue(entry: Entry, path: Path, issue: PositionedIssue): PacksIssue {
  const key = String(path.at(-1));
  const name = entry[key];
  const example = `standard: ${typeof name === 'string' ? name : '<name>'}`;
  return issue(
    Code.schema,
    path,
    `${showPath(path)}: unknown key "${key}"; did you mean "standard"? e.g. ${example}`,
    { expected: 'standard', found: key },
    true,
  );
}

/** What {@link expandStandardPacks} returns: the file with each standard entry merged, and what it found wrong. */
export interface StandardExpansion {
  readonly data: unknown;
  readonly issues: PacksIssue[];
  /** Index in `command_packs` → the standard pack that entry was declared from. */
  readonly origins: ReadonlyMap<number, string>;
}

/**
 * Replaces every `- standard: <name>` entry of `command_packs` with its bundled pack (from
 * `library`: name → YAML text) merged with the entry's keys. An entry naming no bundled pack, one
 * whose `standard` is not a string, and one that sets `commands` are issues at the entry's keys.
 */
export function expandStandardPacks(
  data: unknown,
  library: Readonly<Record<string, string>>,
  issue: PositionedIssue,
): StandardExpansion {
  const issues: PacksIssue[] = [];
  const origins = new Map<number, string>();
  if (!isMap(data) || !Array.isArray(data.command_packs)) return { data, issues, origins };
  const available = Object.keys(library).sort();
  const packs = data.command_packs.map((entry: unknown, pi) => {
    const at = ['command_packs', pi];
    if (isMap(entry) && !Object.hasOwn(entry, 'standard')) {
      const typo = misspeltStandard(entry);
      if (typo !== undefined) issues.push(misspeltStandardIssue(entry, [...at, typo], issue));
      return entry;
    }
    if (!isMap(entry)) return entry;
    const name = entry.standard;
    if (typeof name !== 'string') {
      const expected = `a standard pack name: ${listForMessage(available)}`;
      issues.push(
        issue(
          Code.schema,
          [...at, 'standard'],
          `${showPath([...at, 'standard'])}: expected ${expected}, found ${describeFound(name)}`,
          { expected, found: describeFound(name) },
        ),
      );
      return entry;
    }
    const text = Object.hasOwn(library, name) ? library[name] : undefined;
    if (text === undefined) {
      issues.push(
        issue(
          Code.unknown_standard,
          [...at, 'standard'],
          `${showPath([...at, 'standard'])}: no standard pack is named "${name}"; expected one of ${listForMessage(available)}`,
          { standard: name, expected: available },
        ),
      );
      return entry;
    }
    if (Object.hasOwn(entry, 'commands')) {
      const expected = `only overrides of the bundled pack (${STANDARD_ENTRY_KEYS.filter((k) => k !== 'standard').join(', ')})`;
      issues.push(
        issue(
          Code.schema,
          [...at, 'commands'],
          `${showPath([...at, 'commands'])}: the commands of standard pack "${name}" come with it; expected ${expected}; to change its commands, copy standard/${name}.yaml into this file as a pack of your own`,
          { expected, found: 'commands' },
          true,
        ),
      );
      return entry;
    }
    const parsed = parseYamlConfig(text);
    // A bundled pack that does not parse is a bug of this release (a test loads every one).
    if (!parsed.ok || !isMap(parsed.data)) throw new Error(`standard pack ${name} does not parse`);
    origins.set(pi, name);
    return mergeStandardPack(name, parsed.data, entry);
  });
  return { data: { ...data, command_packs: packs }, issues, origins };
}
