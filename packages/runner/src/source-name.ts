// A webhook source has two names. Its id (`gh`) is what the runner file declares, what `/hooks/<id>`
// takes and what a run record's `source` holds. Its name (`webhook.gh`) is what an envelope's
// `source` holds and what templates read as `event.source` and `run.source` (TM-21).

/** What a webhook source's name puts before its id. */
export const WEBHOOK_SOURCE_PREFIX = 'webhook.';

/** The name of the webhook source with id `id`, as envelopes and templates give it: `webhook.<id>`. */
export function webhookSourceName(id: string): string {
  return `${WEBHOOK_SOURCE_PREFIX}${id}`;
}
