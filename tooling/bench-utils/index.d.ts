/** Median, min and max of a list of samples. */
export interface Stats {
  median: number;
  min: number;
  max: number;
  samples: number;
}
export interface Side {
  label: string;
  fn: () => unknown;
}
export declare const resultsDir: string;
export declare function summarize(samples: number[]): Stats;
/**
 * Times `subject` and `anchor` interleaved in this process (`rounds` samples each, every sample the mean of
 * `inner` calls), writes `bench/results/<name>.json` with both medians and `ratio = subject / anchor`.
 */
export declare function compare(options: {
  name: string;
  unit?: string;
  subject: Side;
  anchor: Side;
  rounds?: number;
  inner?: number;
  warmup?: number;
  target?: number;
  targetKind?: 'max' | 'min';
  notes?: string;
}): Promise<Record<string, unknown>>;
/** One subject of {@link compareEach}: its result is written to `bench/results/<name>.json`. */
export interface NamedSide extends Side {
  name: string;
  target?: number;
  notes?: string;
}
/**
 * Times every subject and the anchor interleaved in each round (the order rotating), and writes one
 * result per subject with `ratio = subject / anchor`. With a `floor` (the least any implementation
 * could cost here, timed in the same rounds), each result also holds the floor's stats and
 * `ratioToFloor = subject / floor`.
 */
export declare function compareEach(options: {
  anchor: Side;
  subjects: NamedSide[];
  floor?: Side;
  rounds?: number;
  inner?: number;
  warmup?: number;
  unit?: string;
}): Promise<Record<string, unknown>[]>;
/**
 * Times every side interleaved in each round (the order rotating) and returns each side's stats in
 * the order given; writes nothing (for results that hold more than one ratio).
 */
export declare function sampleEach(
  sides: { fn: () => unknown }[],
  options?: { rounds?: number; inner?: number; warmup?: number },
): Promise<Stats[]>;
/**
 * Writes any result object to `bench/results/<name>.json` with the machine fields added: Node's
 * version, the platform, and `machine` (how many CPUs, and the 1-minute load average as it was written).
 */
export declare function writeResult(name: string, result: Record<string, unknown>): Record<string, unknown>;
