import { describe, expect, it } from 'vitest';
import { renderSignature } from '../src/index';
import { corpusCommands, fixtureNames, readFixture } from './corpus';

/**
 * Every fixture's commands and the line each renders to. A fixture, or a command in one, that this
 * table does not map fails the suite; so does an entry with no fixture behind it.
 */
const EXPECTED: Record<string, Record<string, string>> = {
  'manifest/demo-workspace-packs': {
    'json-tools.query': 'json-tools.query(filter: string, file: string)  [read, global]',
    'json-tools.edit-in-place': 'json-tools.edit-in-place(filter: string, file: string)  [write, global]',
    'repo.log': 'repo.log(count: integer)  [read, global]',
    'repo.grep': 'repo.grep(pattern: string)  [read, global]',
    'repo.tag': 'repo.tag(name: string)  [write, global]',
    'echo.argv': 'echo.argv(value: string)  [read, global]',
  },
  'manifest/loom-builtins': {
    'loom.compose':
      'loom.compose(request_id: string, components: {...}[], loom_id?: string, expected_version?: integer) -> {receipt, replayed, current_version, displaced}  [write, global]',
    'loom.inspect': 'loom.inspect(loom_id?: string) -> {loom_id, version, components, layout}  [read, loom]',
    'loom.authoring-context':
      'loom.authoring-context(loom_id?: string) -> {receipts, target, target_unavailable}  [read, global]',
  },
  'manifest/seed-examples': {
    'people-discovery.dossier':
      'people-discovery.dossier(entity_id: string, limit?: integer = 50) -> {messages, records}  [read, global]',
    'json-tools.query': 'json-tools.query(filter: string, file: string)  [read, global]',
    'json-tools.edit-in-place': 'json-tools.edit-in-place(filter: string, file: string)  [write, global]',
    'github.list-prs': 'github.list-prs(repo: string)  [global]',
  },
  'mcp/server-everything': {
    echo: 'echo(message: string)  [global]',
    'get-annotated-message':
      'get-annotated-message(messageType: error|success|debug, includeImage?: boolean = false)  [global]',
    'get-env': 'get-env()  [global]',
    'get-resource-links': 'get-resource-links(count?: number = 3)  [global]',
    'get-resource-reference':
      'get-resource-reference(resourceType?: Text|Blob = Text, resourceId?: number = 1)  [global]',
    'get-structured-content':
      'get-structured-content(location: "New York"|Chicago|"Los Angeles") -> {temperature, conditions, humidity}  [global]',
    'get-sum': 'get-sum(a: number, b: number)  [global]',
    'get-tiny-image': 'get-tiny-image()  [global]',
    'gzip-file-as-resource':
      'gzip-file-as-resource(name?: string = README.md.gz, data?: string = "https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md", outputType?: resourceLink|resource = resourceLink)  [global]',
    'toggle-simulated-logging': 'toggle-simulated-logging()  [global]',
    'toggle-subscriber-updates': 'toggle-subscriber-updates()  [global]',
    'trigger-long-running-operation':
      'trigger-long-running-operation(duration?: number = 10, steps?: number = 5)  [global]',
    'simulate-research-query':
      'simulate-research-query(topic: string, ambiguous?: boolean = false)  [global]',
  },
  'mcp/server-filesystem': {
    read_file: 'read_file(path: string, tail?: number, head?: number) -> {content}  [global]',
    read_text_file: 'read_text_file(path: string, tail?: number, head?: number) -> {content}  [global]',
    read_media_file: 'read_media_file(path: string) -> {content}  [global]',
    read_multiple_files: 'read_multiple_files(paths: string[]) -> {content}  [global]',
    write_file: 'write_file(path: string, content: string) -> {content}  [global]',
    edit_file: 'edit_file(path: string, edits: {...}[], dryRun?: boolean = false) -> {content}  [global]',
    create_directory: 'create_directory(path: string) -> {content}  [global]',
    list_directory: 'list_directory(path: string) -> {content}  [global]',
    list_directory_with_sizes:
      'list_directory_with_sizes(path: string, sortBy?: name|size = name) -> {content}  [global]',
    directory_tree: 'directory_tree(path: string, excludePatterns?: string[] = []) -> {content}  [global]',
    move_file: 'move_file(source: string, destination: string) -> {content}  [global]',
    search_files:
      'search_files(path: string, pattern: string, excludePatterns?: string[] = []) -> {content}  [global]',
    get_file_info: 'get_file_info(path: string) -> {content}  [global]',
    list_allowed_directories: 'list_allowed_directories() -> {content}  [global]',
  },
  'mcp/server-github': {
    create_or_update_file:
      'create_or_update_file(owner: string, repo: string, path: string, content: string, message: string, branch: string, sha?: string)  [global]',
    search_repositories: 'search_repositories(query: string, page?: number, perPage?: number)  [global]',
    create_repository:
      'create_repository(name: string, description?: string, private?: boolean, autoInit?: boolean)  [global]',
    get_file_contents:
      'get_file_contents(owner: string, repo: string, path: string, branch?: string)  [global]',
    push_files:
      'push_files(owner: string, repo: string, branch: string, files: {...}[], message: string)  [global]',
    create_issue:
      'create_issue(owner: string, repo: string, title: string, body?: string, assignees?: string[], milestone?: number, labels?: string[])  [global]',
    create_pull_request:
      'create_pull_request(owner: string, repo: string, title: string, head: string, base: string, body?: string, draft?: boolean, maintainer_can_modify?: boolean)  [global]',
    fork_repository: 'fork_repository(owner: string, repo: string, organization?: string)  [global]',
    create_branch:
      'create_branch(owner: string, repo: string, branch: string, from_branch?: string)  [global]',
    list_commits:
      'list_commits(owner: string, repo: string, sha?: string, page?: number, perPage?: number)  [global]',
    list_issues:
      'list_issues(owner: string, repo: string, direction?: asc|desc, labels?: string[], page?: number, per_page?: number, since?: string, sort?: created|updated|comments, state?: open|closed|all)  [global]',
    update_issue:
      'update_issue(owner: string, repo: string, issue_number: number, title?: string, body?: string, assignees?: string[], milestone?: number, labels?: string[], state?: open|closed)  [global]',
    add_issue_comment:
      'add_issue_comment(owner: string, repo: string, issue_number: number, body: string)  [global]',
    search_code: 'search_code(q: string, order?: asc|desc, page?: number, per_page?: number)  [global]',
    search_issues:
      'search_issues(q: string, order?: asc|desc, page?: number, per_page?: number, sort?: comments|reactions|reactions-+1|reactions--1|reactions-smile|reactions-thinking_face|reactions-heart|reactions-tada|interactions|created|updated)  [global]',
    search_users:
      'search_users(q: string, order?: asc|desc, page?: number, per_page?: number, sort?: followers|repositories|joined)  [global]',
    get_issue: 'get_issue(owner: string, repo: string, issue_number: number)  [global]',
    get_pull_request: 'get_pull_request(owner: string, repo: string, pull_number: number)  [global]',
    list_pull_requests:
      'list_pull_requests(owner: string, repo: string, state?: open|closed|all, head?: string, base?: string, sort?: created|updated|popularity|long-running, direction?: asc|desc, per_page?: number, page?: number)  [global]',
    create_pull_request_review:
      'create_pull_request_review(owner: string, repo: string, pull_number: number, body: string, event: APPROVE|REQUEST_CHANGES|COMMENT, commit_id?: string, comments?: {...}[])  [global]',
    merge_pull_request:
      'merge_pull_request(owner: string, repo: string, pull_number: number, commit_title?: string, commit_message?: string, merge_method?: merge|squash|rebase)  [global]',
    get_pull_request_files:
      'get_pull_request_files(owner: string, repo: string, pull_number: number)  [global]',
    get_pull_request_status:
      'get_pull_request_status(owner: string, repo: string, pull_number: number)  [global]',
    update_pull_request_branch:
      'update_pull_request_branch(owner: string, repo: string, pull_number: number, expected_head_sha?: string)  [global]',
    get_pull_request_comments:
      'get_pull_request_comments(owner: string, repo: string, pull_number: number)  [global]',
    get_pull_request_reviews:
      'get_pull_request_reviews(owner: string, repo: string, pull_number: number)  [global]',
  },
  'mcp/server-memory': {
    create_entities: 'create_entities(entities: {...}[]) -> {entities}  [global]',
    create_relations: 'create_relations(relations: {...}[]) -> {relations}  [global]',
    add_observations: 'add_observations(observations: {...}[]) -> {results}  [global]',
    delete_entities: 'delete_entities(entityNames: string[]) -> {success, message}  [global]',
    delete_observations: 'delete_observations(deletions: {...}[]) -> {success, message}  [global]',
    delete_relations: 'delete_relations(relations: {...}[]) -> {success, message}  [global]',
    read_graph: 'read_graph() -> {entities, relations}  [global]',
    search_nodes: 'search_nodes(query: string) -> {entities, relations}  [global]',
    open_nodes: 'open_nodes(names: string[]) -> {entities, relations}  [global]',
  },
  'mcp/server-sequential-thinking': {
    sequentialthinking:
      'sequentialthinking(thought: string, nextThoughtNeeded: boolean|string, thoughtNumber: integer, totalThoughts: integer, isRevision?: boolean|string, revisesThought?: integer, branchFromThought?: integer, branchId?: string, needsMoreThoughts?: boolean|string) -> {thoughtNumber, totalThoughts, nextThoughtNeeded, branches, thoughtHistoryLength}  [global]',
  },
};

describe('corpus: real MCP tool schemas and manifest rows', () => {
  it('maps every fixture, and only fixtures that exist', () => {
    expect(fixtureNames()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const fixture of fixtureNames()) {
    describe(fixture, () => {
      it('names where it came from', () => {
        const source = readFixture(fixture).source;
        expect(typeof source === 'string' && source.length > 20).toBe(true);
      });

      it('renders each command to its expected line', () => {
        const expected = EXPECTED[fixture];
        expect(expected, `no expected lines for fixture ${fixture}`).toBeDefined();
        const commands = corpusCommands(fixture);
        expect(commands.map((c) => String(c.input.name))).toEqual(Object.keys(expected ?? {}));
        for (const c of commands) {
          expect(renderSignature(c.input), String(c.input.name)).toBe(expected?.[String(c.input.name)]);
        }
      });
    });
  }
});
