// `describe`: every field of one harness as the runner resolved it, for `harness runner describe`
// and the console's Runs view. Environment values are never shown, only their names.
import { ADAPTERS } from './adapters';
import type { AgentKind } from './schema';
import type { Harness } from './types';

/** Every field of a harness, as `describe` shows it (env values are not shown, only names). */
export function describeHarness(h: Harness): Record<string, unknown> {
  const prompt =
    h.prompt === undefined
      ? null
      : h.prompt.kind === 'verbatim'
        ? { from: h.prompt.from, verbatim: h.prompt.text }
        : { from: h.prompt.from, template: h.prompt.template.source };
  const agent = h.kind in ADAPTERS ? ADAPTERS[h.kind as AgentKind] : undefined;
  return {
    id: h.id,
    kind: h.kind,
    when: h.when,
    argv: h.argv ?? null,
    args: h.args,
    shell: h.shell ?? null,
    one_shot: agent && h.prompt ? [agent.exe, ...agent.oneShot('<prompt>', h.model)] : null,
    transcripts: h.transcripts ?? null,
    prompt,
    prompt_delivery: h.delivery ?? null,
    untrusted_inline: h.untrustedInline,
    model: h.model ?? null,
    workdir: h.workdir,
    env: Object.keys(h.env),
    env_inherit: h.envInherit,
    timeout_ms: Number.isFinite(h.timeoutMs) ? h.timeoutMs : null,
    max_output_bytes: h.maxOutputBytes,
  };
}
