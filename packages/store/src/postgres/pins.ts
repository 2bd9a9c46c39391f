// Pinned definitions of MCP server tools in PostgreSQL (docs/servers.md, "Pinned definitions"),
// shared by every host of the database: the hash a person accepted per (server, tool), and each
// unaccepted definition listed: which, when it first and last appeared, whether a person rejected it.
import type { ChainSetup } from '../chained';
import { pinEvent } from '../pin-audit';
import type { Store, ToolDecision, ToolPin, ToolSighting } from '../types';
import { insertAudit } from './audit';
import { lockKey, type PgDb, type Tx } from './client';

type PinPart = Pick<Store, 'listToolPins' | 'sightTool' | 'listToolSightings' | 'decideTool'>;

const PIN_COLUMNS = 'server, tool, hash, definition, accepted_at, accepted_by, via';
const SIGHTING_COLUMNS = 'server, tool, hash, definition, first_seen, last_seen, rejected_at, rejected_by';

async function decide(tx: Tx, setup: ChainSetup, d: ToolDecision): Promise<void> {
  const at = (d.now ?? new Date()).toISOString();
  const [was] = await tx.query<{ hash: string }>(
    'SELECT hash FROM tool_pins WHERE server = $1 AND tool = $2 FOR UPDATE',
    [d.server, d.tool],
  );
  if (d.decision === 'accepted') {
    await tx.query(
      `INSERT INTO tool_pins (${PIN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (server, tool) DO UPDATE SET hash = EXCLUDED.hash, definition = EXCLUDED.definition, accepted_at = EXCLUDED.accepted_at,
         accepted_by = EXCLUDED.accepted_by, via = EXCLUDED.via`,
      [d.server, d.tool, d.hash, d.definition, at, d.by, d.via],
    );
  } else {
    await tx.query(
      `INSERT INTO tool_sightings (${SIGHTING_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $5, $5, $6)
       ON CONFLICT (server, tool, hash) DO UPDATE SET rejected_at = EXCLUDED.rejected_at, rejected_by = EXCLUDED.rejected_by,
         definition = COALESCE(tool_sightings.definition, EXCLUDED.definition)`,
      [d.server, d.tool, d.hash, d.definition, at, d.by],
    );
  }
  // Last before COMMIT: the decision and its audit row commit together.
  await insertAudit(tx, pinEvent(d, was?.hash), setup);
}

/** The pins part of the PostgreSQL store. */
export function pgPins(db: PgDb, setup: ChainSetup): PinPart {
  return {
    listToolPins: (server) =>
      db.tx(
        "read the servers' pinned tools",
        (tx) =>
          server === undefined
            ? tx.query<ToolPin>(`SELECT ${PIN_COLUMNS} FROM tool_pins ORDER BY server, tool`)
            : tx.query<ToolPin>(`SELECT ${PIN_COLUMNS} FROM tool_pins WHERE server = $1 ORDER BY tool`, [
                server,
              ]),
        { idempotent: true, readOnly: true },
      ),
    // An insert that does nothing when the row is there, then the row: running it again is harmless.
    // `inserted` is whether the transaction whose INSERT wrote the row is this call's: run again
    // after a lost COMMIT, the call finds its own row (the xmin its first INSERT reported) and still
    // holds the claim; a row another call wrote is that call's (as claimNotice does).
    sightTool: (s) => {
      let wrote: string | undefined;
      return db.tx(
        'record a tool definition awaiting review',
        async (tx) => {
          const at = (s.now ?? new Date()).toISOString();
          const [mine] = await tx.query<{ xmin: string }>(
            'INSERT INTO tool_sightings (server, tool, hash, definition, first_seen, last_seen) VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (server, tool, hash) DO NOTHING RETURNING xmin::text AS xmin',
            [s.server, s.tool, s.hash, s.definition, at],
          );
          if (mine !== undefined) wrote = mine.xmin;
          const [row] = await tx.query<ToolSighting & { xmin: string }>(
            `SELECT ${SIGHTING_COLUMNS}, xmin::text AS xmin FROM tool_sightings WHERE server = $1 AND tool = $2 AND hash = $3`,
            [s.server, s.tool, s.hash],
          );
          const { xmin, ...sighting } = row as ToolSighting & { xmin: string };
          const inserted = wrote !== undefined && xmin === wrote;
          if (inserted) return { ...sighting, inserted };
          // Seen again: last_seen moves forward only, and a sighting recorded without its definition
          // gets it. Not for the row this call inserted (its xmin is the claim a retry finds).
          const [again] = await tx.query<ToolSighting>(
            `UPDATE tool_sightings SET last_seen = GREATEST(last_seen, $4), definition = COALESCE(definition, $5)
             WHERE server = $1 AND tool = $2 AND hash = $3 RETURNING ${SIGHTING_COLUMNS}`,
            [s.server, s.tool, s.hash, at, s.definition],
          );
          return { ...(again as ToolSighting), inserted };
        },
        { idempotent: true },
      );
    },
    listToolSightings: (server) =>
      db.tx(
        'read the tool definitions awaiting review',
        (tx) =>
          server === undefined
            ? tx.query<ToolSighting>(
                `SELECT ${SIGHTING_COLUMNS} FROM tool_sightings ORDER BY server, tool, first_seen`,
              )
            : tx.query<ToolSighting>(
                `SELECT ${SIGHTING_COLUMNS} FROM tool_sightings WHERE server = $1 ORDER BY tool, first_seen`,
                [server],
              ),
        { idempotent: true, readOnly: true },
      ),
    decideTool: (d) =>
      db.tx("decide on a server tool's definition", (tx) => decide(tx, setup, d), {
        idempotent: false,
        lock: lockKey(`pin:${d.server}\n${d.tool}`),
        unknownHint: 'see whether it was recorded with `harness servers review`',
      }),
  };
}
