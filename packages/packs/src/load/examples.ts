// One example line for every field of a pack, so that a schema issue shows the right shape beside
// what it expected. Keyed by the field's path with list indices dropped and each map entry's own
// name written `*`; the longest matching suffix wins (`requires.version` over `version`). A file that
// embeds packs (a workspace) adds the lines of its own fields.

/** The example line of each pack field, by path (see above). */
export const PACK_EXAMPLES: Readonly<Record<string, string>> = {
  command_packs:
    'command_packs: [{ id: dev, commands: [{ id: status, effects: read, argv: [git, status] }] }]',
  'command_packs.id': 'id: dev',
  description: 'description: Shows the working tree',
  title: 'title: Show the working tree',
  permission: 'permission: cautious',
  permission_overrides: 'permission_overrides: { push: strict }',
  'permission_overrides.*': 'push: strict',
  timeout: 'timeout: 30s',
  timeout_overrides: 'timeout_overrides: { build: 5m }',
  'timeout_overrides.*': 'build: 5m',
  max_output: 'max_output: 10MB',
  approval_wait: 'approval_wait: 2m',
  approval_timeout: 'approval_timeout: 15m',
  telemetry: 'telemetry: { include_args: true }',
  'telemetry.include_args': 'include_args: true',
  requires: 'requires: [{ binary: jq, version: ">=1.7" }]',
  'requires.binary': 'binary: jq',
  'requires.version': 'version: ">=1.7"',
  cwd: 'cwd: ./repo',
  env: 'env: { GH_TOKEN: "{{credential.gh_token}}" }',
  'env.*': 'GH_TOKEN: "{{credential.gh_token}}"',
  credentials_ref: 'credentials_ref: [gh_token]',
  label: 'label: { confidentiality: [internal] }',
  confidentiality: 'confidentiality: [internal]',
  integrity: 'integrity: [trusted]',
  optional: 'optional: true',
  scopes: 'scopes: [repo:read]',
  sandbox: 'sandbox: { filesystem: { write: [./out] }, network: none }',
  filesystem: 'filesystem: { read: [.], write: [./out] }',
  read: 'read: [., ~/.config/tool]',
  write: 'write: [./out]',
  deny: 'deny: [./secrets]',
  network: 'network: none',
  processes: 'processes: 64',
  commands: 'commands: [{ id: status, effects: read, argv: [git, status] }]',
  'commands.id': 'id: status',
  argv: 'argv: [git, log, -n, "{{count}}"]',
  inputs: 'inputs: { count: { type: integer, minimum: 1 } }',
  'inputs.*': 'count: { type: integer, minimum: 1 }',
  'inputs.*.type': 'type: string',
  'inputs.*.enum': 'enum: [main, dev]',
  'inputs.*.pattern': 'pattern: "^[^-]"',
  'inputs.*.minLength': 'minLength: 1',
  'inputs.*.maxLength': 'maxLength: 200',
  'inputs.*.minimum': 'minimum: 0',
  'inputs.*.maximum': 'maximum: 100',
  'inputs.*.allow_leading_dash': 'allow_leading_dash: true',
  'inputs.*.default': 'default: 10',
  'inputs.*.within_cwd': 'within_cwd: true',
  'inputs.*.enum_from_workspace': 'enum_from_workspace: true',
  input_overrides: 'input_overrides: { run: { target: { enum: [build, test] } } }',
  'input_overrides.*': 'run: { target: { enum: [build, test] } }',
  values: 'values: { fixed: { "true": fixed-strings, "false": no-fixed-strings } }',
  'values.*': 'fixed: { "true": fixed-strings, "false": no-fixed-strings }',
  examples:
    'examples: [{ args: { count: 3 }, argv: [git, log, -n, "3"] }, { args: { count: 0 }, refused: invalid_value }]',
  'examples.args': 'args: { count: 3 }',
  'examples.argv': 'argv: [git, log, -n, "3"]',
  refused: 'refused: invalid_value',
  variants:
    'variants: [{ requires: [{ binary: rg }], argv: [rg, --, "{{pattern}}"] }, { argv: [grep, -r, --, "{{pattern}}", .] }]',
  'variants.requires': 'requires: [{ binary: rg, version: ">=11" }]',
  effects: 'effects: read',
  output: 'output: { parse: json }',
  'output.parse': 'parse: json',
  'output.sort': 'sort: true',
  ok_exit_codes: 'ok_exit_codes: [0, 1]',
  failure_exit_codes: 'failure_exit_codes: { 1: tests_failed }',
  'failure_exit_codes.*': '1: tests_failed',
  plan_inputs: 'plan_inputs: [Makefile]',
  credential_output_unlabeled: 'credential_output_unlabeled: "prints only the HTTP status"',
};

// Fields whose value is a map of names the file chooses: the next path segment is such a name.
const NAMED_ENTRIES = new Set([
  'inputs',
  'env',
  'permission_overrides',
  'timeout_overrides',
  'input_overrides',
  'values',
  'failure_exit_codes',
]);

/**
 * The example line of the field at `path` (or of the nearest field above it that has one) in
 * `examples`: field path → line, as {@link PACK_EXAMPLES}.
 */
export function exampleFor(
  path: readonly PropertyKey[],
  examples: Readonly<Record<string, string>> = PACK_EXAMPLES,
): string | undefined {
  const segs: string[] = [];
  for (const seg of path) {
    if (typeof seg === 'number') continue;
    segs.push(NAMED_ENTRIES.has(segs.at(-1) ?? '') ? '*' : String(seg));
  }
  for (let end = segs.length; end > 0; end--) {
    for (let start = 0; start < end; start++) {
      const found = examples[segs.slice(start, end).join('.')];
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
