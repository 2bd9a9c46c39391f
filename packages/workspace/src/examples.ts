// One example line for every field of the workspace file that is not a pack's, so that a schema
// issue shows the right shape beside what it expected; the pack fields' lines are @harness/packs'.
// Keyed as @harness/packs keys its own: the field's path with list indices dropped; the longest
// matching suffix wins (`notify.timeout` over a pack's `timeout`).
import { PACK_EXAMPLES } from '@harness/packs/loader';

/** The example line of each workspace field, by path, the pack fields' included. */
export const WORKSPACE_EXAMPLES: Readonly<Record<string, string>> = {
  $schema: '$schema: ./node_modules/@harness/workspace/schema/workspace.schema.json',
  version: 'version: 1',
  sandbox_mode: 'sandbox_mode: preferred',
  agents: 'agents: [{ id: me, grants: ["pack:dev"] }]',
  'agents.id': 'id: me',
  'agents.scopes': 'scopes: [repo:read]',
  grants: 'grants: ["pack:dev", dev.push]',
  notify: 'notify: { targets: [{ kind: ntfy, url: "https://ntfy.sh/my-approvals" }] }',
  'notify.link': 'link: https://console.example.com/',
  'notify.timeout': 'timeout: 5s',
  'notify.attempts': 'attempts: 4',
  'notify.targets':
    'targets: [{ kind: webhook, url: "https://hooks.example.com/harness", secret_env: HOOK_SECRET }]',
  'targets.kind': 'kind: webhook',
  'targets.name': 'name: ops',
  'targets.url': 'url: https://hooks.example.com/harness',
  'targets.secret_env': 'secret_env: HOOK_SECRET',
  'targets.token_env': 'token_env: NTFY_TOKEN',
  'targets.url_env': 'url_env: SLACK_WEBHOOK_URL',
  'targets.include_args': 'include_args: false',
  ...PACK_EXAMPLES,
  mcp_servers:
    'mcp_servers: [{ id: github, transport: { command: [npx, -y, "@modelcontextprotocol/server-github"] } }]',
  'mcp_servers.id': 'id: github',
  'mcp_servers.transport':
    'transport: { command: [node, server.js], env: { TOKEN: "{{credential.gh_token}}" } }',
  'transport.command': 'command: [npx, -y, "@modelcontextprotocol/server-github"]',
  'transport.env': 'env: { GITHUB_PERSONAL_ACCESS_TOKEN: "{{credential.gh_token}}" }',
  'transport.cwd': 'cwd: .',
  'transport.url': 'url: https://mcp.example.com/mcp',
  'transport.headers': 'headers: { Authorization: "Bearer {{credential.docs}}" }',
  'mcp_servers.permission_overrides': 'permission_overrides: { merge_pull_request: strict }',
  'mcp_servers.tools': 'tools: { get_issue: { effects: read } }',
  'tools.effects': 'effects: read',
  'mcp_servers.timeout': 'timeout: 60s',
  start_timeout: 'start_timeout: 30s',
  'mcp_servers.max_output': 'max_output: 1MiB',
  trust_annotations: 'trust_annotations: true',
  'mcp_servers.pin': 'pin: true',
  'mcp_servers.sandbox': 'sandbox: { network: host }',
  'mcp_servers.credentials_ref': 'credentials_ref: gh_token',
};
