import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect, it } from 'vitest';
import {
  type AuthorizeInput,
  authorize,
  POLICY_MODES,
  type PolicyMode,
  PROMPT_SLOTS,
  type PromptSlot,
  TOOL_EFFECTS,
  type ToolEffect,
} from '../src/index';

const enforcing = ['enforce-explicit', 'enforce-strict'] as const;
const at = (mode: PolicyMode, slot: PromptSlot, toolEffect: ToolEffect, tool: string) =>
  authorize({ mode, slot, toolEffect, tool });
// The effect classes @harness/commands gives its tools (HC-131..133, HC-141, LA-52..54).
const runCommand = (mode: PolicyMode, slot: PromptSlot) => at(mode, slot, 'write', 'run_command');
const runRead = (mode: PolicyMode, slot: PromptSlot) => at(mode, slot, 'read', 'run_read_command');
const listCommands = (mode: PolicyMode, slot: PromptSlot) => at(mode, slot, 'read', 'list_commands');

describe('authorize: run_command (a write)', () => {
  it.each(enforcing)('under %s a write runs for a direct-command task [HC-135, HC-136]', (mode) => {
    expect(runCommand(mode, 'direct-command')).toEqual({ allowed: true, reasonCode: 'cfc_direct_command' });
  });

  it.each(enforcing)('under %s a write is refused for every other slot [HC-135, HC-136]', (mode) => {
    for (const slot of ['context', 'quote', 'absent'] as const) {
      expect(runCommand(mode, slot)).toEqual({
        allowed: false,
        reasonCode: 'cfc_write_requires_direct_command',
      });
    }
  });

  it.each(enforcing)('under %s a context-bound task cannot invoke run_command [HC-137]', (mode) => {
    expect(runCommand(mode, 'context').allowed).toBe(false);
  });

  it('at enforce-strict run_command stays a write: the host-read exception never covers it [HC-154]', () => {
    expect(runCommand('enforce-strict', 'context')).toEqual({
      allowed: false,
      reasonCode: 'cfc_write_requires_direct_command',
    });
    // Even named as a host-read tool, a write is a write.
    expect(at('enforce-strict', 'context', 'write', 'run_read_command').allowed).toBe(false);
  });

  it('loom_compose is a write: enforcing modes require direct-command authority [LA-52]', () => {
    for (const mode of enforcing) {
      expect(at(mode, 'direct-command', 'write', 'loom_compose').allowed).toBe(true);
      for (const slot of ['context', 'quote', 'absent'] as const) {
        expect(at(mode, slot, 'write', 'loom_compose').allowed).toBe(false);
      }
    }
  });

  it('the write check is an authority check only: no label or flow enters the decision [LA-55]', () => {
    const input = {
      mode: 'enforce-explicit',
      slot: 'direct-command',
      toolEffect: 'write',
      tool: 'loom_compose',
    };
    const withLabel = { ...input, label: { confidentiality: ['secret'] }, ceiling: [] };
    expect(authorize(withLabel as AuthorizeInput)).toEqual(authorize(input as AuthorizeInput));
  });
});

describe('authorize: reads', () => {
  it.each(enforcing)('under %s a context-bound task may invoke run_read_command [HC-142]', (mode) => {
    expect(runRead(mode, 'context').allowed).toBe(true);
  });

  it('enforce-explicit lets every read through, whatever the slot', () => {
    for (const slot of PROMPT_SLOTS) {
      expect(at('enforce-explicit', slot, 'read', 'some_read_tool').allowed).toBe(true);
    }
    expect(at('enforce-explicit', 'quote', 'read', 'x')).toEqual({
      allowed: true,
      reasonCode: 'cfc_enforce_explicit_read',
    });
  });

  it('at enforce-strict an explicitly context-bound task may invoke list_commands [HC-149]', () => {
    expect(listCommands('enforce-strict', 'context')).toEqual({
      allowed: true,
      reasonCode: 'cfc_enforce_strict_host_command_read',
    });
  });

  it('at enforce-strict an explicitly context-bound task may invoke run_read_command [HC-150]', () => {
    expect(runRead('enforce-strict', 'context')).toEqual({
      allowed: true,
      reasonCode: 'cfc_enforce_strict_host_command_read',
    });
  });

  it('at enforce-strict quoted task authority cannot invoke list_commands or run_read_command [HC-151]', () => {
    expect(listCommands('enforce-strict', 'quote').allowed).toBe(false);
    expect(runRead('enforce-strict', 'quote')).toEqual({
      allowed: false,
      reasonCode: 'cfc_enforce_strict_requires_direct_command',
    });
  });

  it('at enforce-strict absent task authority cannot invoke list_commands or run_read_command [HC-152]', () => {
    expect(listCommands('enforce-strict', 'absent').allowed).toBe(false);
    expect(runRead('enforce-strict', 'absent').allowed).toBe(false);
  });

  it('at enforce-strict other read tools keep their gate for a context-bound task [HC-153, LA-53, LA-54]', () => {
    for (const tool of ['loom_inspect', 'loom_authoring_context', 'read_file', 'List_Commands']) {
      expect(at('enforce-strict', 'context', 'read', tool)).toEqual({
        allowed: false,
        reasonCode: 'cfc_enforce_strict_requires_direct_command',
      });
      expect(at('enforce-strict', 'direct-command', 'read', tool).allowed).toBe(true);
      expect(at('enforce-explicit', 'context', 'read', tool).allowed).toBe(true);
    }
  });

  it('the strict admission is traced as cfc_enforce_strict_host_command_read, and only there [HC-155]', () => {
    const codes = new Set<string>();
    for (const mode of POLICY_MODES)
      for (const slot of PROMPT_SLOTS)
        for (const effect of TOOL_EFFECTS)
          for (const tool of ['list_commands', 'run_read_command', 'run_command', 'loom_inspect']) {
            const d = at(mode, slot, effect, tool);
            if (d.reasonCode === 'cfc_enforce_strict_host_command_read')
              codes.add(`${mode} ${slot} ${effect} ${tool}`);
          }
    expect([...codes].sort()).toEqual([
      'enforce-strict context read list_commands',
      'enforce-strict context read run_read_command',
    ]);
  });

  it('the admission is not a grant: the decision carries nothing a broker could read as one [HC-156]', () => {
    expect(Object.keys(runRead('enforce-strict', 'context')).sort()).toEqual(['allowed', 'reasonCode']);
  });
});

describe('authorize: disabled and observe', () => {
  it('disabled allows every known call', () => {
    expect(runCommand('disabled', 'absent')).toEqual({ allowed: true, reasonCode: 'cfc_disabled' });
  });

  it('observe only warns, naming the first enforcing mode that would deny', () => {
    expect(runCommand('observe', 'context')).toEqual({
      allowed: true,
      reasonCode: 'cfc_observe',
      warning: { wouldDenyUnder: 'enforce-explicit', reasonCode: 'cfc_write_requires_direct_command' },
    });
    expect(at('observe', 'quote', 'read', 'loom_inspect')).toEqual({
      allowed: true,
      reasonCode: 'cfc_observe',
      warning: { wouldDenyUnder: 'enforce-strict', reasonCode: 'cfc_enforce_strict_requires_direct_command' },
    });
    expect(runRead('observe', 'context')).toEqual({ allowed: true, reasonCode: 'cfc_observe' });
  });
});

describe('authorize: fail closed', () => {
  it.each([
    [
      'an unknown mode',
      { mode: 'enforce', slot: 'direct-command', toolEffect: 'read', tool: 't' },
      'cfc_policy_mode_unknown',
    ],
    ['a missing slot', { mode: 'disabled', toolEffect: 'read', tool: 't' }, 'cfc_prompt_slot_unknown'],
    [
      'an unknown slot',
      { mode: 'observe', slot: 'system', toolEffect: 'read', tool: 't' },
      'cfc_prompt_slot_unknown',
    ],
    ['a missing effect', { mode: 'disabled', slot: 'direct-command', tool: 't' }, 'cfc_tool_effect_unknown'],
    [
      'an unknown effect',
      { mode: 'observe', slot: 'context', toolEffect: 'execute', tool: 't' },
      'cfc_tool_effect_unknown',
    ],
    [
      'an empty tool name',
      { mode: 'disabled', slot: 'context', toolEffect: 'read', tool: '' },
      'cfc_tool_unknown',
    ],
    ['no input at all', undefined, 'cfc_policy_mode_unknown'],
  ])('denies %s, under every mode', (_name, input, reasonCode) => {
    expect(authorize(input as unknown as AuthorizeInput)).toEqual({ allowed: false, reasonCode });
  });

  it('reads only own fields: a polluted prototype authorizes nothing', () => {
    const input = Object.create({ mode: 'disabled', slot: 'direct-command', toolEffect: 'write', tool: 't' });
    expect(authorize(input).allowed).toBe(false);
  });
});

const anyString = fc.oneof(
  fc.constantFrom<unknown>(...POLICY_MODES, ...PROMPT_SLOTS, ...TOOL_EFFECTS, undefined, null, 3, ''),
  fc.string(),
);
const tool = fc.oneof(
  fc.constantFrom('list_commands', 'run_read_command', 'run_command', 'loom_compose', 'loom_inspect'),
  fc.string({ minLength: 1 }),
);

describe('authorize: laws', () => {
  test.prop(
    [fc.oneof(fc.anything(), fc.record({ mode: anyString, slot: anyString, toolEffect: anyString, tool }))],
    {
      numRuns: fcRuns(1000),
    },
  )('is total: every input gets a decision, and unknown metadata is never allowed', (input) => {
    const d = authorize(input as AuthorizeInput);
    expect(typeof d.allowed).toBe('boolean');
    expect(d.reasonCode).toMatch(/^cfc_/);
    const r = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
    const known =
      POLICY_MODES.includes(r.mode as PolicyMode) &&
      PROMPT_SLOTS.includes(r.slot as PromptSlot) &&
      TOOL_EFFECTS.includes(r.toolEffect as ToolEffect) &&
      typeof r.tool === 'string' &&
      r.tool !== '' &&
      Object.hasOwn(r, 'mode');
    if (!known) expect(d.allowed).toBe(false);
  });

  test.prop([fc.constantFrom(...PROMPT_SLOTS), fc.constantFrom(...TOOL_EFFECTS), tool], {
    numRuns: fcRuns(500),
  })('permissiveness never rises from observe to enforce-explicit to enforce-strict', (slot, effect, t) => {
    const [disabled, observe, explicit, strict] = POLICY_MODES.map((m) => at(m, slot, effect, t).allowed);
    if (strict) expect(explicit).toBe(true);
    if (explicit) expect(observe).toBe(true);
    // observe and disabled never deny a call whose metadata is known.
    expect(observe && disabled).toBe(true);
  });
});
