// The workspace's `notify` block (docs/notify.md): who is told of an approval waiting for a person,
// and of its decision. Its shape is a zod schema the workspace schema embeds; building it gives each
// target a stable name and warns of an environment variable it names that is not set here.
import { DURATION, ENV_NAME_PATTERN, ID_PATTERN, parseDuration } from '@harness/config';
import { id as idOf, strict } from '@harness/config/zod';
import { PacksErrorCode as Code, type PacksIssue } from '@harness/packs';
import type { BuildContext } from '@harness/packs/loader';
import { z } from 'zod';

/** The wait for one attempt's answer when `notify.timeout` is absent: 5 s. */
export const DEFAULT_NOTIFY_TIMEOUT_MS = 5_000;
/** The longest `notify.timeout`: 30 s. */
export const MAX_NOTIFY_TIMEOUT_MS = 30_000;
/** How many attempts one announcement gets when `notify.attempts` is absent. */
export const DEFAULT_NOTIFY_ATTEMPTS = 4;
/** The most attempts `notify.attempts` may ask for. */
export const MAX_NOTIFY_ATTEMPTS = 10;

/** What every kind of target shares. */
interface TargetBase {
  /** Its name in the delivery log: as written, else its kind (`webhook`, `webhook-2`, …). */
  readonly name: string;
  /** Send the call's argument values and argv (default false). */
  readonly includeArgs: boolean;
}

/** A generic webhook: a signed JSON body. */
export interface WebhookTarget extends TargetBase {
  readonly kind: 'webhook';
  readonly url: string;
  /** The environment variable holding the HMAC-SHA256 secret. */
  readonly secretEnv: string;
}

/** An ntfy topic: a plain-text message with ntfy's headers. */
export interface NtfyTarget extends TargetBase {
  readonly kind: 'ntfy';
  readonly url: string;
  /** The environment variable holding a bearer token, if the topic needs one. */
  readonly tokenEnv?: string;
}

/** A Slack incoming webhook, whose URL is itself the secret. */
export interface SlackTarget extends TargetBase {
  readonly kind: 'slack';
  /** The environment variable holding the webhook URL. */
  readonly urlEnv: string;
}

/** One place an announcement goes. */
export type NotifyTarget = WebhookTarget | NtfyTarget | SlackTarget;

/** The workspace's `notify` block, with every default resolved. */
export interface NotifyConfig {
  /** The console's address: a notice links to `<link>#/approvals/<id>`; absent: no link is sent. */
  readonly link?: string;
  /** The wait for one attempt's answer, in ms. */
  readonly timeoutMs: number;
  /** Attempts per announcement, the first included. */
  readonly attempts: number;
  readonly targets: readonly NotifyTarget[];
}

const HTTP_URL = 'expected an http:// or https:// URL';

const httpUrl = z.string({ error: HTTP_URL }).refine(
  (s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hash === '';
    } catch {
      return false;
    }
  },
  { error: `${HTTP_URL} without a #fragment` },
);

const envName = z
  .string({ error: 'expected the name of an environment variable' })
  .regex(ENV_NAME_PATTERN, { error: 'expected the name of an environment variable such as HOOK_SECRET' });

const common = {
  name: idOf('notify target', ID_PATTERN).optional().meta({
    description: 'Its name in the delivery log. Default: its kind (webhook, webhook-2, …).',
  }),
  include_args: z.boolean({ error: 'expected true or false' }).optional().meta({
    description: "Send the call's argument values and argv. Default false.",
  }),
};

const target = z.discriminatedUnion(
  'kind',
  [
    strict({
      kind: z.literal('webhook'),
      url: httpUrl,
      secret_env: envName.meta({ description: 'The variable holding the HMAC-SHA256 signing secret.' }),
      ...common,
    }),
    strict({
      kind: z.literal('ntfy'),
      url: httpUrl.meta({ description: 'The topic URL, e.g. https://ntfy.sh/my-approvals.' }),
      token_env: envName.optional().meta({ description: 'The variable holding a bearer token.' }),
      ...common,
    }),
    strict({
      kind: z.literal('slack'),
      url_env: envName.meta({ description: 'The variable holding the incoming webhook URL.' }),
      ...common,
    }),
  ],
  { error: 'expected a target whose kind is webhook, ntfy or slack' },
);

const timeout = z.string({ error: 'expected a duration such as 5s' }).refine(
  (s) => {
    const ms = DURATION.pattern.test(s) ? parseDuration(s) : undefined;
    return ms !== undefined && ms <= MAX_NOTIFY_TIMEOUT_MS;
  },
  { error: `expected a duration such as 5s, above 0 and at most ${MAX_NOTIFY_TIMEOUT_MS / 1000}s` },
);

/** The zod schema of the `notify` block. */
export const notifySchema = strict({
  link: httpUrl.optional().meta({
    description: "The console's address: a notice links to <link>#/approvals/<id>. Absent: no link.",
  }),
  timeout: timeout.optional().meta({ description: 'How long one attempt waits for an answer. Default 5s.' }),
  attempts: z
    .number({ error: `expected a whole number from 1 to ${MAX_NOTIFY_ATTEMPTS}` })
    .int({ error: `expected a whole number from 1 to ${MAX_NOTIFY_ATTEMPTS}` })
    .min(1, { error: `expected a whole number from 1 to ${MAX_NOTIFY_ATTEMPTS}` })
    .max(MAX_NOTIFY_ATTEMPTS, { error: `expected a whole number from 1 to ${MAX_NOTIFY_ATTEMPTS}` })
    .optional()
    .meta({
      description: `Attempts per announcement, the first included. Default ${DEFAULT_NOTIFY_ATTEMPTS}.`,
    }),
  targets: z
    .array(target, { error: 'expected a list of targets' })
    .min(1, { error: 'expected at least one target' }),
}).meta({
  description: 'Who is told of an approval waiting for a person, and of its decision (docs/notify.md).',
});

/** The `notify` block as the schema accepted it. */
type NotifyFile = z.output<typeof notifySchema>;
type TargetFile = NotifyFile['targets'][number];

/** The environment variables a target names, by key. */
function envKeys(t: TargetFile): [key: string, name: string][] {
  switch (t.kind) {
    case 'webhook':
      return [['secret_env', t.secret_env]];
    case 'ntfy':
      return t.token_env === undefined ? [] : [['token_env', t.token_env]];
    case 'slack':
      return [['url_env', t.url_env]];
  }
}

/** One target with its name and defaults resolved. */
function targetOf(t: TargetFile, name: string): NotifyTarget {
  const base = { name, includeArgs: t.include_args ?? false };
  switch (t.kind) {
    case 'webhook':
      return { ...base, kind: 'webhook', url: t.url, secretEnv: t.secret_env };
    case 'ntfy':
      return { ...base, kind: 'ntfy', url: t.url, ...(t.token_env ? { tokenEnv: t.token_env } : {}) };
    case 'slack':
      return { ...base, kind: 'slack', urlEnv: t.url_env };
  }
}

/** Each target's name: as written, else its kind, numbered from the second of a kind on. */
function namesOf(targets: readonly TargetFile[]): string[] {
  const seen = new Map<string, number>();
  return targets.map((t) => {
    if (t.name !== undefined) return t.name;
    const n = (seen.get(t.kind) ?? 0) + 1;
    seen.set(t.kind, n);
    return n === 1 ? t.kind : `${t.kind}-${n}`;
  });
}

/**
 * The name of a `token` query parameter in `link` (any case, anywhere in the query), if it has one.
 * The console's login links carry their token there; a notification sends its link to every target.
 */
function tokenParameter(link: string): string | undefined {
  for (const key of new URL(link).searchParams.keys()) if (key.toLowerCase() === 'token') return key;
  return undefined;
}

/** Whether `url` is plain http:// to a host other than this machine's loopback. */
function plainHttpAway(url: string): boolean {
  const u = new URL(url);
  if (u.protocol !== 'http:') return false;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return !(host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host));
}

/**
 * Builds the `notify` block: a target that would send a bearer token over plain http:// to another
 * host is an issue; a `link` carrying a `token` query parameter is an issue (it would send
 * a console login token to every target); a name used twice is an issue; a variable a target names and this
 * process's environment (`options.env`) lacks is a warning, not an error — the console and the
 * CLI load the workspace without the broker's secrets — and that target's notices are recorded
 * `failed` by a broker that lacks it too.
 */
export function buildNotify(
  raw: NotifyFile | undefined,
  ctx: BuildContext,
  issues: PacksIssue[],
  warnings: PacksIssue[],
): NotifyConfig | undefined {
  if (raw === undefined) return undefined;
  const env = ctx.options.env ?? process.env;
  const token = raw.link === undefined ? undefined : tokenParameter(raw.link);
  if (token !== undefined) {
    issues.push(
      ctx.issue(
        Code.schema,
        ['notify', 'link'],
        `notify.link carries a "${token}" query parameter: remove it, and give the console's address alone (e.g. https://console.example.org/). Every target is sent this link, so a login token in it would reach each target's service, logs and readers, and let any of them sign in to the console and decide approvals; a person signs in with their passkey, or with the link \`harness console\` prints`,
        { expected: 'the console address without a token', found: `a "${token}" query parameter` },
      ),
    );
  }
  raw.targets.forEach((t, i) => {
    if (t.kind !== 'ntfy' || t.token_env === undefined || !plainHttpAway(t.url)) return;
    issues.push(
      ctx.issue(
        Code.schema,
        ['notify', 'targets', i, 'url'],
        `notify.targets[${i}].url is plain http:// to another host, and the target sends the bearer token in ${t.token_env} with every notice: anyone on the way would read it. Use https://, or a loopback address for a server on this machine`,
        { expected: 'an https:// URL (or http:// to loopback)', found: 'http:// to another host' },
      ),
    );
  });
  const names = namesOf(raw.targets);
  names.forEach((name, i) => {
    const first = names.indexOf(name);
    if (first < i) {
      issues.push(
        ctx.issue(
          Code.schema,
          ['notify', 'targets', i, 'name'],
          `notify.targets[${i}]: the name "${name}" is taken by notify.targets[${first}]; give each target its own name`,
          { expected: 'a name no other target has', found: `"${name}"` },
        ),
      );
    }
  });
  raw.targets.forEach((t, i) => {
    for (const [key, name] of envKeys(t)) {
      const value = env[name];
      if (value !== undefined && value !== '') continue;
      warnings.push(
        ctx.issue(
          Code.notify_env_unset,
          ['notify', 'targets', i, key],
          `notify.targets[${i}].${key}: the environment variable ${name} is not set here, so target "${names[i]}" cannot be sent to from this process; set ${name} in the environment the broker (harness serve) starts in`,
          { target: names[i] as string, env: name },
        ),
      );
    }
  });
  return {
    ...(raw.link === undefined ? {} : { link: raw.link }),
    timeoutMs: raw.timeout === undefined ? DEFAULT_NOTIFY_TIMEOUT_MS : (parseDuration(raw.timeout) as number),
    attempts: raw.attempts ?? DEFAULT_NOTIFY_ATTEMPTS,
    targets: raw.targets.map((t, i) => targetOf(t, names[i] as string)),
  };
}
