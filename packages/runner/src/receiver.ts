// The webhook receiver: POST /hooks/<source id>. Per delivery, in this order: refuse a body over the
// cap before reading it whole; verify the HMAC signature over the raw bytes in constant time; drop a
// body accepted before (by the SHA-256 of those bytes, within the retention window); parse JSON;
// write the version-1 envelope (0600, atomic, never over another file); commit the body, its
// delivery and its pending runs in one transaction; answer 202; then hand the runs to the supervisor.
// An acknowledged delivery is therefore never lost to a crash: a restart starts its pending runs.
//
// The delivery-id header is not signed: anyone holding one signed body can re-post it with any id,
// or none. So the id decides nothing. It is recorded as data, and it names the envelope file only
// when it is a plain name (the event-id pattern: no `/`, no leading dot) not already taken.
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { eventIdFor, isEventId } from '@harness/events';
import { writeEnvelope } from '@harness/events/node';
import { BodyClaims } from './claims';
import type { RunnerMetrics } from './metrics';
import { bodyDigest, DELIVERY_HEADERS, EVENT_HEADERS, SIGNATURE_HEADERS, verifySignature } from './signature';
import { webhookSourceName } from './source-name';
import type { NewRun, RunStore } from './store';
import type { RunnerConfig, Source } from './types';

/** What the receiver needs. */
export interface ReceiverOptions {
  readonly config: RunnerConfig;
  readonly store: RunStore;
  /** `<instance>/runner`. */
  readonly runnerDir: string;
  /** The secret of each source, read from its `secret_env` at start. */
  readonly secrets: ReadonlyMap<string, string>;
  /** Called after the 202 with the ids of the pending runs the delivery created. */
  readonly onAccepted: (runIds: readonly string[]) => void;
  readonly newRunId: () => string;
  readonly metrics: RunnerMetrics;
}

/** One audit line (`<instance>/runner/audit.log`): never a body or a secret. */
export interface AuditLine {
  at: string;
  source: string;
  outcome: 'accepted' | 'bad_signature' | 'too_large' | 'not_json' | 'no_event' | 'duplicate' | 'error';
  status: number;
  /** The delivery-id header as sent (unsigned, at most 200 characters), when there was one. */
  delivery?: string;
  /** SHA-256 of the verified body: what makes a delivery a duplicate of an accepted one. */
  digest?: string;
  event?: string;
  runs?: string[];
}

/** The longest delivery id recorded; a forge's is a UUID or a number, so this never cuts a real one. */
const DELIVERY_ID_MAX = 200;

function answer(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    connection: 'close',
  });
  res.end(text);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Reads the body up to `max` bytes; `undefined` when it is larger (the rest is not read). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function matches(config: RunnerConfig, source: Source, event: string, action: string | undefined) {
  return config.harnesses.filter(
    (h) =>
      h.when.type === 'trigger' &&
      h.when.source === source.id &&
      h.when.events.includes(event) &&
      (h.when.actions === undefined || (action !== undefined && h.when.actions.includes(action))),
  );
}

/**
 * Creates the envelope's file empty and exclusively (`wx`), so it is never an earlier delivery's file:
 * `<dir>/<event id>.json`, or `<dir>/<uuid>.json` when that name is taken. The event id may come from
 * the unsigned delivery header, so it is used only when it matches the event-id pattern (no `/`, no
 * leading dot: one plain name inside `dir`); `eventIdFor` ensures that, and this checks it again here,
 * where a path is made of it.
 */
async function claimEnvelopeFile(dir: string, eventId: string): Promise<string> {
  for (let name = isEventId(eventId) ? eventId : randomUUID(); ; name = randomUUID()) {
    const file = join(dir, `${name}.json`);
    try {
      await (await open(file, 'wx', 0o600)).close();
      return file;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** One signature-verified delivery on its way to acceptance. */
interface Verified {
  readonly source: Source;
  readonly body: Buffer;
  readonly digest: string;
  /** The delivery-id header, bounded; `null` when absent. Data only. */
  readonly delivery: string | null;
}

/** What the audit log and the metrics say of a verified delivery, whatever its outcome. */
function aboutDelivery(v: Verified) {
  return {
    source: v.source.id,
    digest: v.digest,
    ...(v.delivery !== null ? { delivery: v.delivery } : {}),
  };
}

/** Creates the receiver's HTTP server (not listening yet). */
export function createReceiver(options: ReceiverOptions): Server {
  const receiver = new DeliveryReceiver(options);
  return createServer((req, res) => {
    receiver.handle(req, res).catch(() => receiver.internalError(res));
  });
}

/**
 * Handles each request to the receiver's server. What its deliveries share: the audit log they are
 * written to and the claims that make deliveries of one body wait for each other.
 */
class DeliveryReceiver {
  private readonly options: ReceiverOptions;
  private readonly auditFile: string;
  private readonly claims = new BodyClaims();

  constructor(options: ReceiverOptions) {
    this.options = options;
    this.auditFile = join(options.runnerDir, 'audit.log');
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.url === '/metrics' && req.method === 'GET') {
      const text = await this.options.metrics.text();
      res.writeHead(200, { 'content-type': this.options.metrics.registry.contentType });
      res.end(text);
      return;
    }
    const source = this.hookSource(req, res);
    if (source === undefined) return;
    const { config, store } = this.options;
    const body = await readBody(req, config.maxBodyBytes);
    const v = this.verify(req, res, source, body);
    if (v === undefined) return;
    // Deliveries of the same body wait for each other, so two arriving together start one run.
    const release = await this.claims.claim(`${source.id}\0${v.digest}`);
    try {
      const since = new Date(Date.now() - config.deliveryRetentionMs);
      const prior = store.acceptedBody(source.id, v.digest, since);
      if (prior !== undefined) {
        const event = header(req, EVENT_HEADERS[source.scheme]);
        return this.duplicate(res, v, prior.event_id, event === '' ? undefined : event);
      }
      await this.acceptNew(req, res, v);
    } finally {
      release();
    }
  }

  /** Answers a request that failed unexpectedly: 500, unless an answer was already on its way. */
  internalError(res: ServerResponse): void {
    this.audit({ source: 'unknown', outcome: 'error', status: 500 });
    if (!res.headersSent) answer(res, 500, { error: 'internal error; see the runner log' });
  }

  /** The source a POST to its hook is for, with a declared length within the cap; else answered and `undefined`. */
  private hookSource(req: IncomingMessage, res: ServerResponse): Source | undefined {
    const { config } = this.options;
    // A source id is checked at load (@harness/config's SHORT_ID_PATTERN), so equality is the whole check.
    const url = req.url ?? '';
    const hook = url.startsWith('/hooks/') ? url.slice('/hooks/'.length) : undefined;
    const source = config.sources.find((s) => s.id === hook);
    if (source === undefined) {
      answer(res, 404, { error: 'no such hook; POST to /hooks/<source id>' });
      return undefined;
    }
    if (req.method !== 'POST') {
      answer(res, 405, { error: 'use POST' });
      return undefined;
    }
    const declared = Number(header(req, 'content-length') ?? '0');
    if (declared > config.maxBodyBytes) {
      this.audit({ source: source.id, outcome: 'too_large', status: 413 });
      answer(res, 413, { error: `body over ${config.maxBodyBytes} bytes` });
      return undefined;
    }
    return source;
  }

  /** The delivery, when its body was within the cap and its signature holds; else answered and `undefined`. */
  private verify(
    req: IncomingMessage,
    res: ServerResponse,
    source: Source,
    body: Buffer | undefined,
  ): Verified | undefined {
    const { config } = this.options;
    const secret = this.options.secrets.get(source.id) as string;
    if (body === undefined) {
      this.audit({ source: source.id, outcome: 'too_large', status: 413 });
      answer(res, 413, { error: `body over ${config.maxBodyBytes} bytes` });
      return undefined;
    }
    if (!verifySignature(source.scheme, secret, body, header(req, SIGNATURE_HEADERS[source.scheme]))) {
      this.audit({ source: source.id, outcome: 'bad_signature', status: 401 });
      answer(res, 401, { error: 'bad signature' });
      return undefined;
    }
    const id = header(req, DELIVERY_HEADERS[source.scheme]);
    return {
      source,
      body,
      digest: bodyDigest(body),
      delivery: id === undefined ? null : id.slice(0, DELIVERY_ID_MAX),
    };
  }

  /** Records and answers a delivery whose body was accepted already as `eventId`: 200, nothing runs. */
  private duplicate(res: ServerResponse, v: Verified, eventId: string, event?: string): void {
    this.options.store.recordDuplicate({
      source: v.source.id,
      digest: v.digest,
      delivery: v.delivery,
      at: new Date(),
    });
    this.audit({
      ...aboutDelivery(v),
      outcome: 'duplicate',
      status: 200,
      ...(event !== undefined ? { event } : {}),
    });
    answer(res, 200, { duplicate: true, delivery: v.delivery, event_id: eventId });
  }

  /** Parses, writes the envelope, commits; called with the body's claim held and the body new. */
  private async acceptNew(req: IncomingMessage, res: ServerResponse, v: Verified): Promise<void> {
    const read = this.readEvent(req, res, v);
    if (read === undefined) return;
    const { parsed, event } = read;
    const { config, store } = this.options;
    const { source } = v;
    const dir = join(this.options.runnerDir, 'events', source.id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const eventId = eventIdFor(v.delivery ?? undefined);
    const file = await claimEnvelopeFile(dir, eventId);
    let committed = false;
    try {
      const loaded = await writeEnvelope(file, {
        source: webhookSourceName(source.id),
        scheme: source.scheme,
        event,
        delivery: v.delivery ?? undefined,
        body: parsed,
        trustedActors: source.trustedActors,
      });
      const runs = this.newRuns(v, event, loaded.envelope.typed.action, file);
      const at = new Date();
      const since = new Date(at.getTime() - config.deliveryRetentionMs);
      committed = store.accept(
        { source: source.id, digest: v.digest, delivery: v.delivery, eventId, eventFile: file, at, since },
        runs,
      );
      if (!committed) {
        // Another process on the same runs.db accepted this body between our check and our commit.
        const prior = store.acceptedBody(source.id, v.digest, since);
        return this.duplicate(res, v, prior?.event_id ?? eventId, event);
      }
      const ids = runs.map((r) => r.id);
      this.audit({ ...aboutDelivery(v), outcome: 'accepted', status: 202, event, runs: ids });
      answer(res, 202, { accepted: true, delivery: v.delivery, event_id: eventId, runs: ids });
      this.options.onAccepted(ids);
    } finally {
      // An envelope no committed delivery points to is removed, so none is left to be mistaken for one.
      if (!committed) await unlink(file).catch(() => undefined);
    }
  }

  /** The body's JSON and the event header naming it; else answered 400 and `undefined`. */
  private readEvent(
    req: IncomingMessage,
    res: ServerResponse,
    v: Verified,
  ): { readonly parsed: unknown; readonly event: string } | undefined {
    const { source } = v;
    let parsed: unknown;
    try {
      parsed = JSON.parse(v.body.toString('utf8'));
    } catch {
      this.audit({ ...aboutDelivery(v), outcome: 'not_json', status: 400 });
      answer(res, 400, {
        error: 'the body is not JSON; set the webhook content type to application/json',
      });
      return undefined;
    }
    const event = header(req, EVENT_HEADERS[source.scheme]);
    if (event === undefined || event === '') {
      this.audit({ ...aboutDelivery(v), outcome: 'no_event', status: 400 });
      answer(res, 400, { error: `no ${EVENT_HEADERS[source.scheme]} header` });
      return undefined;
    }
    return { parsed, event };
  }

  /**
   * One pending run for each harness the event triggers, all reading the envelope at `file`. Each
   * records the source's id and the delivery id the 202 answer names.
   */
  private newRuns(v: Verified, event: string, action: string | undefined, file: string): NewRun[] {
    return matches(this.options.config, v.source, event, action).map((h) => ({
      id: this.options.newRunId(),
      harness: h.id,
      status: 'pending',
      trigger: 'webhook',
      source: v.source.id,
      delivery: v.delivery,
      event_file: file,
    }));
  }

  private audit(line: Omit<AuditLine, 'at'>): void {
    this.options.metrics.deliveries.inc({ source: line.source, outcome: line.outcome });
    appendFileSync(this.auditFile, `${JSON.stringify({ at: new Date().toISOString(), ...line })}\n`, {
      mode: 0o600,
    });
  }
}
