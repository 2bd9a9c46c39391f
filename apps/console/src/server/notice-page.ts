// The pages the server answers by itself, without a session: a login link already used, and a
// request without a live session. Each is the console's page layout (its header and its stylesheet,
// which is served without a session) around a heading and what to do, and carries no script.

/** What a notice page says: its heading, its paragraphs, and a command to run, shown as code. */
export interface Notice {
  title: string;
  paragraphs: readonly string[];
  command?: { lead: string; line: string; after?: string };
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** The HTML of a notice page. */
export function noticePage(notice: Notice): string {
  const paragraphs = notice.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`);
  const command =
    notice.command === undefined
      ? []
      : [
          `<p>${escapeHtml(notice.command.lead)}</p>`,
          `<pre><code>${escapeHtml(notice.command.line)}</code></pre>`,
          ...(notice.command.after === undefined ? [] : [`<p>${escapeHtml(notice.command.after)}</p>`]),
        ];
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8" />',
    '<meta name="viewport" content="width=device-width, initial-scale=1" />',
    `<title>${escapeHtml(notice.title)} · harness console</title>`,
    '<link rel="stylesheet" href="/assets/app.css" />',
    '</head>',
    '<body>',
    '<header><span class="brand">harness console</span></header>',
    '<main id="main">',
    `<h1>${escapeHtml(notice.title)}</h1>`,
    ...paragraphs,
    ...command,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** The page of a login link that does not log in: used already, or not one this console printed. */
export function usedLinkNotice(hasOperatorToken: boolean): Notice {
  return {
    title: 'This login link was already used',
    paragraphs: [
      'A link that harness console prints logs in once, in one browser, and this one has logged in already (or it is not a link this console printed).',
    ],
    command: {
      lead: 'To get a new link, stop the running console (Ctrl-C in its terminal) and start it again with the same options; it prints a new link:',
      line: 'harness console',
      after: hasOperatorToken
        ? 'Pending approvals wait in the store meanwhile. Your operator token also logs in again at /?token=<token>.'
        : 'Pending approvals wait in the store meanwhile.',
    },
  };
}
