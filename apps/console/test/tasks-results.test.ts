// What a completed task reports: `looms` and `pieces` with `loomComponents`, read from the turn's
// own paired tool observations. These are transcripts as the engine records them; the end-to-end
// tests (tasks-api.test.ts) drive the same functions through real turns.
import { describe, expect, it } from 'vitest';
import { loomsOfTurn, piecesOfTurn } from '../src/server/tasks/results';
import type { TranscriptItem } from '../src/server/tasks/transcript';

const receipt = (loom: string, request: string, componentIds: string[], version = 1) => ({
  loom_id: loom,
  request_id: request,
  version,
  created: version === 1,
  component_ids: componentIds,
  operation_ids: componentIds.map((_, i) => `op-${i}`),
  displaced: [],
  committed_at: '2026-12-01T00:00:00.000Z',
});

const composed = (loom: string, request: string, ids: string[], extra: Record<string, unknown> = {}) => ({
  status: 'ok',
  kind: 'loom-authored',
  receipt: receipt(loom, request, ids),
  replayed: false,
  current_version: 1,
  displaced: [],
  ...extra,
});

/** A transcript builder: calls and their answers, each in a turn. */
class Transcript {
  items: TranscriptItem[] = [];
  call(turn: string, id: string, name: string, args: unknown): this {
    this.items.push({
      turn,
      role: 'assistant',
      content: '',
      toolCalls: [{ id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }],
    });
    return this;
  }
  answer(turn: string, id: string, name: string, result: Record<string, unknown>): this {
    this.items.push({ turn, role: 'tool', toolCallId: id, name, content: JSON.stringify(result), result });
    return this;
  }
  both(turn: string, id: string, name: string, args: unknown, result: Record<string, unknown>): this {
    return this.call(turn, id, name, args).answer(turn, id, name, result);
  }
  say(turn: string, text: string): this {
    this.items.push({ turn, role: 'assistant', content: text, toolCalls: [] });
    return this;
  }
}

const composeArgs = (request: string, components: unknown[], loomId?: string) => ({
  request_id: request,
  components,
  ...(loomId ? { loom_id: loomId } : {}),
});

describe('looms of a turn', () => {
  it('is an empty array when nothing qualifies [LA-128]', () => {
    expect(loomsOfTurn(new Transcript().say('t1', 'nothing done').items, 't1')).toEqual([]);
  });

  it('holds receipt, replayed and current_version for each verified compose [LA-129]', () => {
    const t = new Transcript().both(
      't1',
      'c1',
      'loom_compose',
      composeArgs('r1', [{ ref: 'url:https://a' }]),
      composed('loom-a', 'r1', ['cmp-1']),
    );
    expect(loomsOfTurn(t.items, 't1')).toEqual([
      { receipt: receipt('loom-a', 'r1', ['cmp-1']), replayed: false, current_version: 1 },
    ]);
  });

  it('counts only successful loom_compose observations of this turn [LA-130]', () => {
    const t = new Transcript()
      .both('t1', 'c1', 'loom_compose', composeArgs('r1', [{ ref: 'url:x' }]), {
        status: 'refused',
        code: 'version_conflict',
      })
      .both('t1', 'c2', 'loom_compose', composeArgs('r2', [{ ref: 'url:x' }]), {
        status: 'uncertain',
        guidance: 'retry',
      })
      .both('t1', 'c3', 'run_command', { command: 'loom.compose' }, composed('loom-z', 'r3', ['cmp-1']));
    expect(loomsOfTurn(t.items, 't1')).toEqual([]);
  });

  it('earlier transcript history produces no entry [LA-131]', () => {
    const t = new Transcript()
      .both(
        't1',
        'c1',
        'loom_compose',
        composeArgs('r1', [{ ref: 'url:x' }]),
        composed('loom-a', 'r1', ['cmp-1']),
      )
      .say('t2', 'I made loom-a earlier.');
    expect(loomsOfTurn(t.items, 't1')).toHaveLength(1);
    expect(loomsOfTurn(t.items, 't2')).toEqual([]);
  });

  it('inspections produce no entry [LA-132]', () => {
    const t = new Transcript().both(
      't1',
      'c1',
      'loom_inspect',
      { loom_id: 'loom-a' },
      {
        status: 'ok',
        loom_id: 'loom-a',
        version: 3,
        components: [],
        receipt: receipt('loom-a', 'r1', ['cmp-1']),
      },
    );
    expect(loomsOfTurn(t.items, 't1')).toEqual([]);
  });

  it('history lookups produce no entry [LA-133]', () => {
    const t = new Transcript().both(
      't1',
      'c1',
      'loom_authoring_context',
      {},
      {
        status: 'ok',
        kind: 'loom-authored',
        receipts: [receipt('loom-a', 'r1', ['cmp-1'])],
        receipt: receipt('loom-a', 'r1', ['cmp-1']),
        replayed: false,
        current_version: 1,
      },
    );
    expect(loomsOfTurn(t.items, 't1')).toEqual([]);
  });

  it('prose produces no entry, even prose that quotes a receipt [LA-134]', () => {
    const t = new Transcript().say('t1', JSON.stringify(composed('loom-a', 'r1', ['cmp-1'])));
    expect(loomsOfTurn(t.items, 't1')).toEqual([]);
  });

  it('malformed receipts produce no entry [LA-135]', () => {
    const bad = [
      {
        ...composed('loom-a', 'r1', ['cmp-1']),
        receipt: { ...receipt('loom-a', 'r1', ['cmp-1']), version: 0 },
      },
      {
        ...composed('loom-a', 'r1', ['cmp-1']),
        receipt: { ...receipt('loom-a', 'r1', ['cmp-1']), component_ids: 'cmp-1' },
      },
      { ...composed('loom-a', 'r1', ['cmp-1']), receipt: { ...receipt('-bad id', 'r1', ['cmp-1']) } },
      { ...composed('loom-a', 'r1', ['cmp-1']), receipt: null },
      { ...composed('loom-a', 'r1', ['cmp-1']), replayed: 'no' },
      // A receipt for another request than the call made.
      composed('loom-a', 'r-other', ['cmp-1']),
    ];
    for (const result of bad) {
      const t = new Transcript().both(
        't1',
        'c1',
        'loom_compose',
        composeArgs('r1', [{ ref: 'url:x' }]),
        result,
      );
      expect(loomsOfTurn(t.items, 't1')).toEqual([]);
    }
  });

  it('an explicit replay in the current turn is included, as a replay [LA-136]', () => {
    const replay = {
      ...composed('loom-a', 'r1', ['cmp-1']),
      replayed: true,
      current_version: 4,
    };
    const t = new Transcript().both(
      't2',
      'c9',
      'loom_compose',
      composeArgs('r1', [{ ref: 'url:x' }]),
      replay,
    );
    expect(loomsOfTurn(t.items, 't2')).toEqual([
      { receipt: receipt('loom-a', 'r1', ['cmp-1']), replayed: true, current_version: 4 },
    ]);
  });
});

describe('pieces of a turn and their loomComponents', () => {
  const slug = (token: string, name: string) => ({ pattern_token: token, slug: name });
  const slugged = (name: string) => ({ status: 'ok', slug: name });

  it('a piece named this turn and composed with the same held token carries loomComponents [LA-138]', () => {
    const t = new Transcript()
      .both('t1', 'a1', 'assign_slug', slug('ptok-1', 'weekly'), slugged('weekly'))
      .both(
        't1',
        'c1',
        'loom_compose',
        composeArgs('r1', [{ ref: 'url:x' }, { pattern_token: 'ptok-1' }]),
        composed('loom-a', 'r1', ['cmp-1', 'cmp-2']),
      );
    expect(piecesOfTurn(t.items, 't1')).toEqual([
      { slug: 'weekly', loomComponents: [{ loomId: 'loom-a', componentId: 'cmp-2' }] },
    ]);
  });

  it('completed results keep pieces: a piece without a compose is still reported, without loomComponents [LA-127]', () => {
    const t = new Transcript().both('t1', 'a1', 'assign_slug', slug('ptok-1', 'weekly'), slugged('weekly'));
    expect(piecesOfTurn(t.items, 't1')).toEqual([{ slug: 'weekly' }]);
  });

  it('a tool-call id must pair with exactly one preceding call of this turn [LA-139]', () => {
    // The answer comes before its call: it pairs with no preceding call.
    const t = new Transcript()
      .answer('t1', 'a1', 'assign_slug', slugged('weekly'))
      .call('t1', 'a1', 'assign_slug', slug('ptok-1', 'weekly'));
    expect(piecesOfTurn(t.items, 't1')).toEqual([]);
  });

  it('the receipt component count must match the request [LA-140]', () => {
    const t = new Transcript()
      .both('t1', 'a1', 'assign_slug', slug('ptok-1', 'weekly'), slugged('weekly'))
      .both(
        't1',
        'c1',
        'loom_compose',
        composeArgs('r1', [{ ref: 'url:x' }, { pattern_token: 'ptok-1' }]),
        composed('loom-a', 'r1', ['cmp-2']),
      );
    expect(piecesOfTurn(t.items, 't1')).toEqual([{ slug: 'weekly' }]);
  });

  it('the receipt component ids keep request order: the id at the token component index is its id [LA-141]', () => {
    const t = new Transcript()
      .both('t1', 'a1', 'assign_slug', slug('ptok-1', 'weekly'), slugged('weekly'))
      .both(
        't1',
        'c1',
        'loom_compose',
        composeArgs('r1', [{ pattern_token: 'ptok-1' }, { ref: 'url:x' }, { pattern_token: 'ptok-1' }]),
        composed('loom-a', 'r1', ['first', 'second', 'third']),
      );
    expect(piecesOfTurn(t.items, 't1')[0]?.loomComponents).toEqual([
      { loomId: 'loom-a', componentId: 'first' },
      { loomId: 'loom-a', componentId: 'third' },
    ]);
  });

  it('a missing pair proves no membership: an answer without its call [LA-142]', () => {
    const t = new Transcript()
      .both('t1', 'a1', 'assign_slug', slug('ptok-1', 'weekly'), slugged('weekly'))
      .answer('t1', 'c-missing', 'loom_compose', composed('loom-a', 'r1', ['cmp-1']));
    expect(piecesOfTurn(t.items, 't1')).toEqual([{ slug: 'weekly' }]);
    expect(loomsOfTurn(t.items, 't1')).toEqual([]);
  });

  it('a historical pair proves no membership: the compose (or the naming) was in an earlier turn [LA-143]', () => {
    const composeEarlier = new Transcript()
      .both(
        't1',
        'c1',
        'loom_compose',
        composeArgs('r1', [{ pattern_token: 'ptok-1' }]),
        composed('loom-a', 'r1', ['cmp-1']),
      )
      .both('t2', 'a1', 'assign_slug', slug('ptok-1', 'weekly'), slugged('weekly'));
    expect(piecesOfTurn(composeEarlier.items, 't2')).toEqual([{ slug: 'weekly' }]);
    // A call of an earlier turn answered in this one pairs with history.
    const callEarlier = new Transcript()
      .both('t2', 'a1', 'assign_slug', slug('ptok-1', 'weekly'), slugged('weekly'))
      .call('t1', 'c1', 'loom_compose', composeArgs('r1', [{ pattern_token: 'ptok-1' }]))
      .answer('t2', 'c1', 'loom_compose', composed('loom-a', 'r1', ['cmp-1']));
    expect(piecesOfTurn(callEarlier.items, 't2')).toEqual([{ slug: 'weekly' }]);
  });

  it('a malformed pair proves no membership: unparseable arguments, or an answer naming another tool [LA-144]', () => {
    const badArgs = new Transcript()
      .both('t1', 'a1', 'assign_slug', slug('ptok-1', 'weekly'), slugged('weekly'))
      .both(
        't1',
        'c1',
        'loom_compose',
        '{"request_id":"r1", components: [',
        composed('loom-a', 'r1', ['cmp-1']),
      );
    expect(piecesOfTurn(badArgs.items, 't1')).toEqual([{ slug: 'weekly' }]);
    const otherTool = new Transcript()
      .both('t1', 'a1', 'assign_slug', slug('ptok-1', 'weekly'), slugged('weekly'))
      .call('t1', 'c1', 'loom_inspect', { loom_id: 'loom-a' })
      .answer('t1', 'c1', 'loom_compose', composed('loom-a', 'r1', ['cmp-1']));
    expect(piecesOfTurn(otherTool.items, 't1')).toEqual([{ slug: 'weekly' }]);
  });

  it('an ambiguous pair proves no membership: one id on two calls, or two answers [LA-145]', () => {
    const twoCalls = new Transcript()
      .both('t1', 'a1', 'assign_slug', slug('ptok-1', 'weekly'), slugged('weekly'))
      .call('t1', 'c1', 'loom_compose', composeArgs('r1', [{ pattern_token: 'ptok-1' }]))
      .call('t1', 'c1', 'loom_compose', composeArgs('r1', [{ pattern_token: 'ptok-1' }]))
      .answer('t1', 'c1', 'loom_compose', composed('loom-a', 'r1', ['cmp-1']));
    expect(piecesOfTurn(twoCalls.items, 't1')).toEqual([{ slug: 'weekly' }]);
    const twoAnswers = new Transcript()
      .call('t1', 'a1', 'assign_slug', slug('ptok-1', 'weekly'))
      .answer('t1', 'a1', 'assign_slug', slugged('weekly'))
      .answer('t1', 'a1', 'assign_slug', slugged('weekly'))
      .both(
        't1',
        'c1',
        'loom_compose',
        composeArgs('r1', [{ pattern_token: 'ptok-1' }]),
        composed('loom-a', 'r1', ['cmp-1']),
      );
    expect(piecesOfTurn(twoAnswers.items, 't1')).toEqual([]);
  });

  it('different tokens for one Pattern give no loomComponents: aliases are not resolved [LA-146]', () => {
    const t = new Transcript()
      .both('t1', 'a1', 'assign_slug', slug('ptok-1', 'weekly'), slugged('weekly'))
      .both(
        't1',
        'c1',
        'loom_compose',
        composeArgs('r1', [{ pattern_token: 'ptok-1-alias' }]),
        composed('loom-a', 'r1', ['cmp-1']),
      );
    expect(piecesOfTurn(t.items, 't1')).toEqual([{ slug: 'weekly' }]);
  });

  it('loomComponents expose no token and no cell address [LA-149]', () => {
    const t = new Transcript()
      .both('t1', 'a1', 'assign_slug', slug('ptok-secret-1', 'weekly'), {
        status: 'ok',
        slug: 'weekly',
        address: 'pattern:space-1/instance-9',
      })
      .both(
        't1',
        'c1',
        'loom_compose',
        composeArgs('r1', [{ pattern_token: 'ptok-secret-1' }]),
        composed('loom-a', 'r1', ['cmp-1']),
      );
    const pieces = piecesOfTurn(t.items, 't1');
    expect(pieces).toEqual([
      { slug: 'weekly', loomComponents: [{ loomId: 'loom-a', componentId: 'cmp-1' }] },
    ]);
    const text = JSON.stringify(pieces);
    expect(text).not.toContain('ptok-secret-1');
    expect(text).not.toContain('pattern:');
  });
});
