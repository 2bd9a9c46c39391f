// The live feed: probes read a cheap fingerprint of something (the last audit seq, the pending
// approvals) on a short interval; when one changes, every subscriber (each open page's event
// stream) is told which topic changed. Pages then re-read what they show.

/** One change: the topic (e.g. `audit`, `approvals`) and its new fingerprint. */
export interface LiveEvent {
  topic: string;
  value: string;
}

type Probe = () => Promise<string>;

/** Polls its probes while anyone listens, and fans changes out to the listeners. */
export class Watch {
  private readonly probes = new Map<string, Probe>();
  private readonly last = new Map<string, string>();
  private readonly listeners = new Set<(event: LiveEvent) => void>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(private readonly intervalMs = 100) {}

  /** Adds a probe for `topic`; its value is compared with the previous one on every tick. */
  probe(topic: string, read: Probe): void {
    this.probes.set(topic, read);
  }

  /** Tells every listener now (a change this process made itself, e.g. a decision). */
  publish(event: LiveEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /** Listens; returns the function that stops listening. Polling runs while anyone listens. */
  subscribe(listener: (event: LiveEvent) => void): () => void {
    this.listeners.add(listener);
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.tick(), this.intervalMs);
      this.timer.unref();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  /** One round of probes; a probe that fails is skipped this round. */
  async tick(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const [topic, read] of this.probes) {
        let value: string;
        try {
          value = await read();
        } catch {
          continue;
        }
        const before = this.last.get(topic);
        this.last.set(topic, value);
        if (before !== undefined && before !== value) this.publish({ topic, value });
      }
    } finally {
      this.polling = false;
    }
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
