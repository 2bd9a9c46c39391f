import { describe, expect, it } from 'vitest';
import { HostError } from '../src/errors';
import { parseScope, resolveScope, type ScopeWorkspace } from '../src/scope';

// A hand-written ScopeWorkspace (mock of what @harness/workspace provides) to pin the narrowing rules.
const mockWorkspace: ScopeWorkspace = {
  agentCommands: (a) => ({ reader: ['t.read'], editor: ['t.read', 't.write'] })[a],
  agentIds: () => ['reader', 'editor'],
  resolveGrants: (g) =>
    g[0] === 'pack:t'
      ? { ok: true, commands: ['t.read'] }
      : g[0]?.startsWith('t.')
        ? { ok: true, commands: [g[0]] }
        : { ok: false, message: `unknown grant ${g[0]}` },
  effectOf: (id) => (id === 't.read' ? 'read' : 'write'),
};

describe('the scope file', () => {
  it('parses YAML and JSON', () => {
    expect(parseScope('run: r1\nagent: reader\n')).toEqual({ run: 'r1', agent: 'reader' });
    expect(
      parseScope(
        '{"run":"r1","agent":"editor","job":"j1","grants":["t.read"],"readOnly":false,"builtins":["loom.inspect"]}',
      ),
    ).toEqual({
      run: 'r1',
      agent: 'editor',
      job: 'j1',
      grants: ['t.read'],
      readOnly: false,
      builtins: ['loom.inspect'],
    });
  });

  it('refuses text that does not parse, unknown keys and missing fields, naming the file', () => {
    expect(() => parseScope('run: [x', 's.yaml')).toThrowError(/s.yaml does not parse/);
    expect(() => parseScope('run: r\nagent: a\nactor: person:me\n', 's.yaml')).toThrowError(
      /unknown key `actor`/,
    );
    expect(() => parseScope('agent: a\n')).toThrowError(/`run` must be/);
    expect(() => parseScope('- a\n')).toThrowError(HostError);
  });

  it('reads YAML as every config file is read: a syntax error names its line and column, a duplicate key is refused', () => {
    expect(() => parseScope('run: [x', 's.yaml')).toThrowErrorMatchingInlineSnapshot(
      `[HostError: scope file s.yaml does not parse as YAML or JSON: Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 8]`,
    );
    expect(() => parseScope('run: r\nagent: a\nrun: s\n', 's.yaml')).toThrowErrorMatchingInlineSnapshot(
      `[HostError: scope file s.yaml does not parse as YAML or JSON: Map keys must be unique at line 3, column 1]`,
    );
    expect(() => parseScope('run: r\nagent: *a\n')).toThrowErrorMatchingInlineSnapshot(
      `[HostError: scope does not parse as YAML or JSON: Unresolved alias (the anchor must be set before the alias): a at line 2, column 8]`,
    );
  });

  it('names a scope given as a value "scope", never a placeholder file name', () => {
    expect(() => resolveScope({ run: 'r', agent: 'nobody' }, mockWorkspace)).toThrowError(
      'scope: agent "nobody" is not declared in the workspace; declared agents: reader, editor',
    );
    expect(() => resolveScope({ run: 'r', agent: 'nobody' }, mockWorkspace, 's.yaml')).toThrowError(
      'scope file s.yaml: agent "nobody" is not declared in the workspace; declared agents: reader, editor',
    );
  });

  it('narrows: a grants subset admits only what it names', () => {
    const s = resolveScope(parseScope('run: r\nagent: editor\ngrants: [t.read]\n'), mockWorkspace);
    expect([...s.commands]).toEqual(['t.read']);
    expect(s.actor).toBe('agent:editor');
  });

  it('never widens: a grant beyond the agent’s is a load error naming the grant', () => {
    expect(() =>
      resolveScope(parseScope('run: r\nagent: reader\ngrants: [t.write]\n'), mockWorkspace, 'x.yaml'),
    ).toThrowError(/grant "t.write" widens agent "reader"/);
    expect(() => resolveScope(parseScope('run: r\nagent: nobody\n'), mockWorkspace)).toThrowError(
      /agent "nobody" is not declared/,
    );
    expect(() =>
      resolveScope(parseScope('run: r\nagent: reader\nbuiltins: [loom.delete]\n'), mockWorkspace),
    ).toThrowError(/not a built-in/);
    expect(() =>
      resolveScope(parseScope('run: r\nagent: reader\nreadOnly: [t.write]\n'), mockWorkspace),
    ).toThrowError(/does not grant/);
  });

  it('includes the loom.* built-ins by default', () => {
    const s = resolveScope(parseScope('run: r\nagent: reader\n'), mockWorkspace);
    expect([...s.builtins].sort()).toEqual(['loom.authoring-context', 'loom.compose', 'loom.inspect']);
    expect(s.readOnly).toBe('reads');
  });
});
