// A small OTLP/HTTP receiver (JSON encoding, what @opentelemetry/exporter-*-otlp-http send), in
// place of an OpenTelemetry Collector, which cannot be installed here: it keeps every body it is
// posted, raw and parsed, and answers as a collector does.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OTLP attribute as the JSON encoding carries it. */
export interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  status?: { code?: number };
}
export interface OtlpDataPoint {
  attributes: OtlpAttribute[];
  asInt?: string | number;
  asDouble?: number;
  count?: string | number;
  sum?: number;
}
export interface OtlpMetric {
  name: string;
  sum?: { dataPoints: OtlpDataPoint[] };
  histogram?: { dataPoints: OtlpDataPoint[] };
}

/** A span's attributes as a plain object. */
export function attrs(list: OtlpAttribute[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list)
    out[key] = value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue);
  return out;
}

/**
 * An OTLP/HTTP receiver (JSON): keeps every body it is posted, raw and parsed, and answers as a
 * collector does. `until` resolves once what it has received satisfies a predicate.
 */
export async function otlpReceiver() {
  const raw: string[] = [];
  const spans: OtlpSpan[] = [];
  const metrics: OtlpMetric[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      raw.push(text);
      const body = JSON.parse(text);
      if (req.url === '/v1/traces')
        for (const r of body.resourceSpans ?? [])
          for (const s of r.scopeSpans ?? []) spans.push(...(s.spans ?? []));
      if (req.url === '/v1/metrics')
        for (const r of body.resourceMetrics ?? [])
          for (const s of r.scopeMetrics ?? []) metrics.push(...(s.metrics ?? []));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
      for (const look of waiters) look();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    raw,
    spans,
    metrics,
    until(ready: () => boolean): Promise<void> {
      return new Promise((resolve) => {
        const look = (): void => {
          if (!ready()) return;
          waiters.delete(look);
          resolve();
        };
        waiters.add(look);
        look();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
