/** Help texts, one per subcommand (docs/host.md has the full reference). */
export const HELP = {
  main: `loom — the reference Loom host

Usage:
  loom command list --json [--transport direct]
  loom command run <id> --args-json - --json [--loom <loomId>] [--expect <version>] [--read-only] [--transport direct]
  loom broker start [--instance <dir>] --socket <path> --scope <file> [--retention <30d>]
  loom approvals list|watch|approve <id>|deny <id> [--instance <dir>]
  loom audit tail [--follow] [--agent <id>] [--command <id>] [--status <outcome>] [--since <when>] [--json] [-n <count>] [--instance <dir>]
  loom audit prune --before <date|duration> [--json] [--instance <dir>]
  loom audit verify [--from <export.jsonl>] [--public-key <key|file>] [--against <export|dir>] [--record] [--json] [--instance <dir>]
  loom audit export --format jsonl [--out <file>] | --to <dir> [--instance <dir>]
  loom init <dir> --workspace <file> [--store sqlite|postgres] [--pg-schema <name>]
  loom migrate [--instance <dir>]

The instance is the one harness uses: --instance <dir>, else $HARNESS_HOME, else
~/.local/share/harness/default ($XDG_DATA_HOME/harness/default). LOOM_INSTANCE_DIR, when set,
stands in for --instance.
Routing comes from the environment: LOOM_PAGE_RPC_QUEUE (the broker socket), LOOM_COMMAND_JOB_ID,
and for --transport direct LOOM_INSTANCE_DIR, LOOM_RUN_ID, LOOM_ACTOR. Run \`loom <command> --help\`.
`,
  command: `loom command — list and run commands through the broker

  loom command list --json
  loom command run <id> --args-json - --json [--loom <loomId>] [--expect <version>] [--read-only]
`,
  list: `loom command list --json [--transport direct]

Prints {"commands":[...]}: the manifest rows the broker at LOOM_PAGE_RPC_QUEUE admits for its scope.
LOOM_COMMAND_JOB_ID, when set, is sent as the job id. With --transport direct (LOOM_INSTANCE_DIR,
LOOM_RUN_ID, LOOM_ACTOR) only the loom.* built-ins are listed.
Exit codes: 0 listed, 1 the broker refused the listing, 2 usage, 3 no broker, 4 internal.
`,
  run: `loom command run <id> --args-json - --json [--loom <loomId>] [--expect <version>] [--read-only] [--transport direct]

Reads one JSON object of arguments on stdin (at most 1 MiB - 8 KiB) and prints one answer
{ok, id, code, reason?, mayHaveLanded, completed, body, ifc?}.
  --loom <loomId>     fills an argument the row marks x-source: "loom" (e.g. loom.inspect's loom_id)
  --expect <version>  fills loom.compose's expected_version
  --read-only         refused unless the command's current effect is read and the scope grants read-only
  --transport direct  run a loom.* built-in against LOOM_INSTANCE_DIR as LOOM_ACTOR in LOOM_RUN_ID
Exit codes: 0 ok, 1 answer not ok, 2 usage (bad flags, malformed or oversized stdin), 3 no broker, 4 internal.
`,
  broker: `loom broker start [--instance <dir>] --socket <path> --scope <file> [--retention <30d>]

Runs a broker for one scope in the foreground: a Unix socket at <path> (mode 0600). Prints one ready
line ({"ready":true,"socket":...}) on stdout. SIGTERM or SIGINT stops it and removes the socket. A
stale socket is replaced; a live one is never taken over. --queue is the old name of --socket
(still read, with a deprecation warning).

  --retention <30d>  prune audit events and spent approvals older than this (30d, 12h, 90m) at
                     start and every hour, as 'loom audit prune --before' would; default: kept
`,
  approvals: `loom approvals list [--all] [--json] [--instance <dir>]
loom approvals watch [--json] [--instance <dir>]
loom approvals approve <id> [--by <name>] [--json] [--instance <dir>]
loom approvals deny <id> [--by <name>] [--json] [--instance <dir>]

Approvals for strict (and cautious write) calls; \`harness approvals\` does the same. Operates on the
instance directory only (--instance <dir>, else $HARNESS_HOME, else the default instance
~/.local/share/harness/default); no broker request can reach it. An approval is single use and expires one hour after it was requested or decided.
list and approve show each call as a person judges it: the command, the pack's tier, the agent, the
run, how long ago it asked (list), when it expires, the argument values and the argv it would run. Values longer than 80
characters are cut with a marker …(+N chars); --json gives them whole. Credentials are never shown.
watch prints the pending approvals, then each new one as it arrives, one line each, until Ctrl-C.
`,
  audit: `loom audit tail [--follow] [--agent <id>] [--command <id>] [--status <outcome>] [--since <when>] [--json] [-n <count>] [--instance <dir>]
loom audit prune --before <date|duration> [--json] [--instance <dir>]
loom audit verify [--from <export.jsonl>] [--public-key <key|file>] [--against <export|dir>] [--record] [--json] [--instance <dir>]
loom audit export --format jsonl [--out <file>] | --to <dir> [--instance <dir>]

tail prints the last <count> (default 20) matching audit events, oldest first, one line each with the
argv a command ran (values cut with a marker …(+N chars); --json gives the events whole).
  --follow          then prints each new matching event as it is written, until Ctrl-C
                    (with --json: one event object per line)
  --agent <id>      an agent's events (the actor agent:<id>; a name with ":" is an actor as is)
  --command <id>    one command's events (* for listings)
  --status <outcome> ok, refused, rejected, failed, error, listed or reaped
  --since <when>    from a date (2026-11-01), an ISO time, or a duration back from now (30d, 12h, 90m)
prune deletes the audit events recorded before a date (2026-11-01, or an ISO time) or older than a
duration (30d, 12h, 90m), and the approvals that can never be used again (consumed, denied,
expired) last changed before it. Receipts are kept: a retried compose must always replay its receipt.
It removes the instance's own chain only, and writes a signed checkpoint of where that chain now starts.
verify checks the hash chains of the instance's store, or of an export (--from), and names the first
event that was changed, removed, inserted or reordered, or where the tail was cut (exit 1); see
docs/audit.md for what it proves. It checks against, and names: --public-key (ed25519:…, as
harness doctor prints it, or a file of keys), else the key recorded for the instance when it was
made ($XDG_CONFIG_HOME/harness/audit-keys/), else the instance's own key, with a WARNING; it fails
when the instance's key is not the recorded or given one.
  --against <export|dir>  also compare the store with an earlier export (or every loom-audit-*.jsonl
                          of a directory): a history rewritten or cut since it fails (diverged)
  --record                record the instance's key, when none is recorded and the store verified
export writes the whole log as a self-verifying JSONL bundle (stdout, or --out <file>, mode 0600),
signed by the instance's key: keep a copy elsewhere, and verify it with --from. --to <dir> writes a
new file loom-audit-<seq>-<hash>.jsonl (mode 0400) named by the last event, never over another; run
it on a schedule into a directory the instance's processes cannot write.
`,
  init: `loom init <dir> --workspace <file> [--store sqlite|postgres] [--pg-schema <name>] [--json]

Creates an instance directory (mode 0700): the store, a copy of the workspace file and instance.json
recording where the workspace lives. The workspace must load; <dir> must be new or empty.
  --store sqlite      (default) an SQLite file in the instance directory (WAL); nothing to install
  --store postgres    a PostgreSQL database that several hosts share. The connection comes from
                      DATABASE_URL, else PGHOST, PGPORT, PGDATABASE, PGUSER; the password from
                      PGPASSWORD, DATABASE_URL or ~/.pgpass when the store is opened, never written
                      into the instance. The schema is created or migrated to this host's version.
  --pg-schema <name>  the PostgreSQL schema holding the tables (default loom); hosts that share a
                      record name the same database and schema
`,
  migrate: `loom migrate [--instance <dir>] [--json]

Brings the instance's store to the schema version this host writes: for PostgreSQL the one step
every host on the database needs after an upgrade (a broker refuses a schema older or newer than
the one it knows, naming both versions). Two runs at once migrate once. An SQLite file migrates
itself when it is opened; migrate reports its version.
`,
} as const;
