// Pinned definitions of MCP server tools in SQLite (docs/servers.md, "Pinned definitions"): the
// hash a person accepted per (server, tool), and each unaccepted definition listed: which, when it
// first and last appeared, and whether a person rejected it.
import type Database from 'better-sqlite3';
import type { ChainSetup } from '../chained';
import { pinEvent } from '../pin-audit';
import type { Store, ToolDecision, ToolPin, ToolSighting } from '../types';
import { auditInserter } from './audit';
import type { Sync } from './sync';

type PinPart = Sync<Pick<Store, 'listToolPins' | 'sightTool' | 'listToolSightings' | 'decideTool'>>;

const PIN_COLUMNS = 'server, tool, hash, definition, accepted_at, accepted_by, via';
const SIGHTING_COLUMNS = 'server, tool, hash, definition, first_seen, last_seen, rejected_at, rejected_by';

/** The pins part of the SQLite store. */
export function sqlitePins(db: Database.Database, setup: ChainSetup): PinPart {
  const insertAudit = auditInserter(db, setup);
  const pins = db.prepare<[], ToolPin>(`SELECT ${PIN_COLUMNS} FROM tool_pins ORDER BY server, tool`);
  const pinsOf = db.prepare<[string], ToolPin>(
    `SELECT ${PIN_COLUMNS} FROM tool_pins WHERE server = ? ORDER BY tool`,
  );
  const pinOf = db.prepare<[string, string], ToolPin>(
    `SELECT ${PIN_COLUMNS} FROM tool_pins WHERE server = ? AND tool = ?`,
  );
  const pin = db.prepare(
    `INSERT INTO tool_pins (${PIN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (server, tool) DO UPDATE SET hash = excluded.hash, definition = excluded.definition, accepted_at = excluded.accepted_at,
       accepted_by = excluded.accepted_by, via = excluded.via`,
  );
  const sight = db.prepare(
    'INSERT INTO tool_sightings (server, tool, hash, definition, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (server, tool, hash) DO NOTHING',
  );
  // Seen again: last_seen moves forward only, and a sighting recorded without its definition gets it.
  const seenAgain = db.prepare(
    `UPDATE tool_sightings SET last_seen = max(coalesce(last_seen, first_seen), ?), definition = coalesce(definition, ?)
     WHERE server = ? AND tool = ? AND hash = ?`,
  );
  const sighting = db.prepare<[string, string, string], ToolSighting>(
    `SELECT ${SIGHTING_COLUMNS} FROM tool_sightings WHERE server = ? AND tool = ? AND hash = ?`,
  );
  const sightings = db.prepare<[], ToolSighting>(
    `SELECT ${SIGHTING_COLUMNS} FROM tool_sightings ORDER BY server, tool, first_seen`,
  );
  const sightingsOf = db.prepare<[string], ToolSighting>(
    `SELECT ${SIGHTING_COLUMNS} FROM tool_sightings WHERE server = ? ORDER BY tool, first_seen`,
  );
  const reject = db.prepare(
    `INSERT INTO tool_sightings (${SIGHTING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (server, tool, hash) DO UPDATE SET rejected_at = excluded.rejected_at, rejected_by = excluded.rejected_by,
       definition = coalesce(tool_sightings.definition, excluded.definition)`,
  );
  const sightTx = db.transaction(
    (s: { server: string; tool: string; hash: string; definition: string; now?: Date }) => {
      const at = (s.now ?? new Date()).toISOString();
      const inserted = sight.run(s.server, s.tool, s.hash, s.definition, at, at).changes === 1;
      if (!inserted) seenAgain.run(at, s.definition, s.server, s.tool, s.hash);
      return { ...(sighting.get(s.server, s.tool, s.hash) as ToolSighting), inserted };
    },
  );
  const decideTx = db.transaction((d: ToolDecision) => {
    const at = (d.now ?? new Date()).toISOString();
    const previous = pinOf.get(d.server, d.tool)?.hash;
    if (d.decision === 'accepted') pin.run(d.server, d.tool, d.hash, d.definition, at, d.by, d.via);
    else reject.run(d.server, d.tool, d.hash, d.definition, at, at, at, d.by);
    insertAudit(pinEvent(d, previous));
  });
  return {
    listToolPins: (server?: string) => (server === undefined ? pins.all() : pinsOf.all(server)),
    sightTool: (s) => sightTx.immediate(s),
    listToolSightings: (server?: string) =>
      server === undefined ? sightings.all() : sightingsOf.all(server),
    decideTool: (d) => decideTx.immediate(d),
  };
}
