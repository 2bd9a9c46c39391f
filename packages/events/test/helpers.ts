// The captured webhook fixtures with the event name each forge sent them with (the rules are
// @harness/test-utils' eventNameOf; a fixture no rule maps makes the fixture tests fail).
import { eventNameOf, type WebhookFixture, webhookFixtures } from '@harness/test-utils';

/** A captured fixture with the event header its forge sent it with. */
export interface MappedFixture extends WebhookFixture {
  event: string | undefined;
}

/** Every fixture with its event name. */
export function fixtures(): MappedFixture[] {
  return webhookFixtures().map((f) => ({ ...f, event: eventNameOf(f.file) }));
}

/** Reads a dotted path of a JSON value (test-side, independent of the package's reader). */
export function at(body: unknown, path: string): unknown {
  let cur: unknown = body;
  for (const k of path.split('.')) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** Every string and number inside a value (deep). */
export function leaves(value: unknown, out: unknown[] = []): unknown[] {
  if (typeof value === 'string' || typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) for (const v of value) leaves(v, out);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) leaves(v, out);
  return out;
}
