// A withheld answer must be no oracle on its content: with the label fixed above the run's ceiling,
// every answer the host could give — ok or failed, any code, reason, exit status, body of any size —
// comes back to the model as the same bytes, for a lone call and inside a batch. Before, `outcome.ok`,
// `code` and `bodyBytes` passed, and `grep -c -- '^db_password=X'` recovered a password in 381 calls.

import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createHostCommandTools } from '../src/host-command-tools';
import { createRun } from '../src/run';
import type { HarnessTool } from '../src/tool';
import { row, type Scenario, scenario } from './helpers/scenario';

const SECRET_LABEL = { confidentiality: ['secret'], integrity: [] };
const commands = [row('vault.grep', { effect: 'read' }), row('vault.write', { effect: 'write' })];

let sc: Scenario;
let tools: Record<string, HarnessTool>;
beforeAll(async () => {
  sc = await scenario('socket');
  sc.script({ commands });
  tools = Object.fromEntries(
    createHostCommandTools({ config: sc.config, client: sc.client }).map((t) => [t.name, t]),
  );
});
afterAll(() => sc.close());

/** What the model sees for `input` when the host gives `answer`, as bytes, on a fresh run with no ceiling. */
async function seen(name: string, input: unknown, answers: Record<string, unknown>): Promise<string> {
  sc.script({
    commands,
    behaviour: Object.fromEntries(Object.entries(answers).map(([k, a]) => [k, { answer: a }])),
  });
  const run = createRun({ mode: 'enforce-explicit', ceiling: [], id: 'run-fixed' });
  const result = await (tools[name] as HarnessTool).execute(input, { run, slot: 'direct-command' });
  return JSON.stringify(result);
}

const answer = (id: string) =>
  fc
    .record({
      ok: fc.boolean(),
      id: fc.constant(id),
      code: fc.constantFrom('ok', 'failed', 'forbidden', 'refused', 'bad-args', 'not_found', 'internal'),
      reason: fc.option(fc.constantFrom('exit_nonzero', 'timed_out', 'output_exceeded', 'escaped'), {
        nil: undefined,
      }),
      mayHaveLanded: fc.boolean(),
      completed: fc.array(fc.string({ maxLength: 20 }), { maxLength: 40 }),
      body: fc.oneof(
        fc.record({
          status: fc.constantFrom('ok', 'exit_nonzero'),
          exitCode: fc.integer({ min: 0, max: 255 }),
          output: fc.string({ maxLength: 3000 }),
        }),
        fc.string({ maxLength: 5000 }),
        fc.constant(null),
      ),
      ifc: fc.constant(SECRET_LABEL),
    })
    .map(({ reason, ...a }) => (reason === undefined ? a : { ...a, reason }));

describe('a withheld answer reveals its status and reason code only [SEC-4] [HC-170]', () => {
  test.prop([answer('vault.grep'), answer('vault.grep')], { numRuns: fcRuns(60) })(
    'a lone call: two different answers give the same serialized result',
    async (a, b) => {
      const x = await seen('run_command', { command: 'vault.grep' }, { 'vault.grep': a });
      const y = await seen('run_command', { command: 'vault.grep' }, { 'vault.grep': b });
      expect(x).toBe(y);
      expect(JSON.parse(x)).toEqual({
        outputId: expect.any(String),
        status: 'executed',
        command: 'vault.grep',
        outcome: { withheld: true, mayHaveLanded: false },
        entry: { status: 'withheld', reasonCode: 'cfc_ceiling_exceeded' },
        truncated: false,
      });
    },
  );

  test.prop([answer('vault.grep'), answer('vault.write'), answer('vault.grep'), answer('vault.write')], {
    numRuns: fcRuns(40),
  })('a batch: different answers give the same serialized result', async (a, b, c, d) => {
    const input = { calls: [{ command: 'vault.grep' }, { command: 'vault.write' }] };
    const x = await seen('run_command', input, { 'vault.grep': a, 'vault.write': b });
    const y = await seen('run_command', input, { 'vault.grep': c, 'vault.write': d });
    expect(x).toBe(y);
    expect(x).toContain('"mayHaveLanded":true');
  });
});
