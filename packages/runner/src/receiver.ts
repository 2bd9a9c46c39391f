// The webhook receiver: POST /hooks/<source id>. Per delivery, in this order: refuse a body over the
// cap before reading it whole; verify the HMAC signature over the raw bytes in constant time; parse
// JSON; drop a delivery id seen before; write the version-1 envelope (0600, atomic); commit the
// delivery and its pending runs in one transaction; answer 202; then hand the runs to the supervisor.
// An acknowledged delivery is therefore never lost to a crash: a restart starts its pending runs.
import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { eventIdFor } from '@harness/events';
import { writeEnvelope } from '@harness/events/node';
import type { RunnerMetrics } from './metrics';
import { DELIVERY_HEADERS, EVENT_HEADERS, SIGNATURE_HEADERS, verifySignature } from './signature';
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

/** One audit line (`<instance>/runner/audit.log`): never a body, a header value or a secret. */
export interface AuditLine {
  at: string;
  source: string;
  outcome: 'accepted' | 'bad_signature' | 'too_large' | 'not_json' | 'no_event' | 'duplicate' | 'error';
  status: number;
  delivery?: string;
  event?: string;
  runs?: string[];
}

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

/** Creates the receiver's HTTP server (not listening yet). */
export function createReceiver(options: ReceiverOptions): Server {
  const { config, store, runnerDir } = options;
  const auditFile = join(runnerDir, 'audit.log');
  const inFlight = new Set<string>();
  const audit = (line: Omit<AuditLine, 'at'>): void => {
    options.metrics.deliveries.inc({ source: line.source, outcome: line.outcome });
    appendFileSync(auditFile, `${JSON.stringify({ at: new Date().toISOString(), ...line })}\n`, {
      mode: 0o600,
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.url === '/metrics' && req.method === 'GET') {
      const text = await options.metrics.text();
      res.writeHead(200, { 'content-type': options.metrics.registry.contentType });
      res.end(text);
      return;
    }
    const m = /^\/hooks\/([a-z0-9][a-z0-9_-]{0,62})$/.exec(req.url ?? '');
    const source = m ? config.sources.find((s) => s.id === m[1]) : undefined;
    if (source === undefined) return answer(res, 404, { error: 'no such hook; POST to /hooks/<source id>' });
    if (req.method !== 'POST') return answer(res, 405, { error: 'use POST' });
    const secret = options.secrets.get(source.id) as string;
    const declared = Number(header(req, 'content-length') ?? '0');
    if (declared > config.maxBodyBytes) {
      audit({ source: source.id, outcome: 'too_large', status: 413 });
      return answer(res, 413, { error: `body over ${config.maxBodyBytes} bytes` });
    }
    const body = await readBody(req, config.maxBodyBytes);
    if (body === undefined) {
      audit({ source: source.id, outcome: 'too_large', status: 413 });
      return answer(res, 413, { error: `body over ${config.maxBodyBytes} bytes` });
    }
    if (!verifySignature(source.scheme, secret, body, header(req, SIGNATURE_HEADERS[source.scheme]))) {
      audit({ source: source.id, outcome: 'bad_signature', status: 401 });
      return answer(res, 401, { error: 'bad signature' });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      audit({ source: source.id, outcome: 'not_json', status: 400 });
      return answer(res, 400, {
        error: 'the body is not JSON; set the webhook content type to application/json',
      });
    }
    const event = header(req, EVENT_HEADERS[source.scheme]);
    if (event === undefined || event === '') {
      audit({ source: source.id, outcome: 'no_event', status: 400 });
      return answer(res, 400, { error: `no ${EVENT_HEADERS[source.scheme]} header` });
    }
    const delivery = header(req, DELIVERY_HEADERS[source.scheme]);
    const key = delivery ?? eventIdFor(undefined);
    if (inFlight.has(key) || store.seen(source.id, key)) {
      audit({ source: source.id, outcome: 'duplicate', status: 200, delivery: key, event });
      return answer(res, 200, { duplicate: true, delivery: key });
    }
    inFlight.add(key);
    try {
      const dir = join(runnerDir, 'events', source.id);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const eventId = eventIdFor(delivery);
      const file = join(dir, `${eventId}.json`);
      const loaded = await writeEnvelope(file, {
        source: `webhook.${source.id}`,
        scheme: source.scheme,
        event,
        delivery,
        body: parsed,
        trustedActors: source.trustedActors,
      });
      const runs: NewRun[] = matches(config, source, event, loaded.envelope.typed.action).map((h) => ({
        id: options.newRunId(),
        harness: h.id,
        status: 'pending',
        trigger: 'webhook',
        source: `webhook.${source.id}`,
        event_file: file,
      }));
      if (!store.accept({ source: source.id, delivery: key, eventFile: file }, runs)) {
        audit({ source: source.id, outcome: 'duplicate', status: 200, delivery: key, event });
        return answer(res, 200, { duplicate: true, delivery: key });
      }
      const ids = runs.map((r) => r.id);
      audit({ source: source.id, outcome: 'accepted', status: 202, delivery: key, event, runs: ids });
      answer(res, 202, { accepted: true, delivery: key, event_id: eventId, runs: ids });
      options.onAccepted(ids);
    } finally {
      inFlight.delete(key);
    }
  };

  return createServer((req, res) => {
    handle(req, res).catch(() => {
      audit({ source: 'unknown', outcome: 'error', status: 500 });
      if (!res.headersSent) answer(res, 500, { error: 'internal error; see the runner log' });
    });
  });
}
