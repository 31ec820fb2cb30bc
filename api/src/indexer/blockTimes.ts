import type { BlockHeader } from "../chain/rpc/actions";

/**
 * The time stamps of the blocks of a batch that hold a log, read from as few headers as exactness allows.
 *
 * A block's time stamp exceeds its parent's by at least `minInterval` seconds (1 under Ethereum's rule that a block is
 * later than its parent, which the OP Stack and Hardhat keep too). So between two headers read, `a` and `b`, block `n`
 * has `ts(a) + minInterval·(n − a) ≤ ts(n) ≤ ts(b) − minInterval·(b − n)`; when `ts(b) − ts(a) = minInterval·(b − a)`
 * the two bounds meet and every block in between is known exactly, without its header. The headers read with the
 * logs (`probes`) cut the batch into stretches; where the bounds of one do not meet, a round reads the headers of up
 * to `SPREAD` blocks spread over the blocks still undecided there (all of them when there are no more), and the
 * round after decides the narrower stretches. Nothing is estimated: each time stamp is
 * either a header's or the only value the headers around it allow.
 */

/** Headers read per undecided stretch and round (a stretch with no more undecided blocks has all of them read). */
const SPREAD = 32;

/**
 * Headers read with a batch's logs, beside its ends, to cut it into stretches before the logs are known: at most
 * `PROBES`, at least `PROBE_SPACING` blocks apart (a short batch has its ends only). Few: each header is node work
 * (about a quarter of a millisecond of Hardhat's), and where blocks come at a fixed interval the ends alone decide
 * the whole batch; probes only narrow the stretch around a jump in time (an idle node, a time travel), which the
 * rounds of `blockTimes` narrow further.
 */
const PROBES = 4;
const PROBE_SPACING = 16;

/** The blocks whose headers are read with the logs of `from`..`to`: both ends and evenly spaced probes between. */
export function probes(from: number, to: number): number[] {
  const count = Math.min(PROBES, Math.floor((to - from) / PROBE_SPACING));
  const step = (to - from) / (count + 1);
  return [...new Set([from, ...Array.from({ length: count }, (_, i) => Math.round(from + step * (i + 1))), to])];
}

export interface BlockTimes {
  /** Time stamp of every block asked for. */
  timestamps: Map<number, number>;
  /** Every header read on the way (the known ones included), by number. */
  headers: Map<number, BlockHeader>;
}

/**
 * Decides the time stamps of `blocks` (each inside the range of the `known` headers, which hold at least the range's
 * ends), reading headers with `read` (one JSON-RPC batch per call) only where the known ones leave a block undecided.
 * Null when the node lacks a header asked for (the chain is changing under the batch). Two headers closer in time
 * than `minInterval` allows mean the setting is wrong for this chain: an error, since no time stamp derived from it
 * could be trusted.
 */
export async function blockTimes(
  blocks: Iterable<number>,
  known: ReadonlyMap<number, BlockHeader>,
  minInterval: number,
  read: (numbers: number[]) => Promise<Map<number, BlockHeader>>,
): Promise<BlockTimes | null> {
  const headers = new Map(known);
  const timestamps = new Map<number, number>();
  let pending = [...new Set(blocks)].sort((x, y) => x - y);
  while (pending.length > 0) {
    const heights = [...headers.keys()].sort((x, y) => x - y);
    const undecided = new Map<number, number[]>();
    let next = 0;
    for (const block of pending) {
      while (next < heights.length && heights[next] < block) next++;
      const at = headers.get(block);
      if (at) {
        timestamps.set(block, at.timestamp);
        continue;
      }
      if (next === 0 || next === heights.length) throw new Error(`block ${block} lies outside the headers read`);
      const below = headers.get(heights[next - 1]) as BlockHeader;
      const above = headers.get(heights[next]) as BlockHeader;
      const least = minInterval * (above.number - below.number);
      if (above.timestamp - below.timestamp < least) {
        throw new Error(
          `blocks ${below.number} and ${above.number} are ${above.timestamp - below.timestamp} s apart, less than ` +
            `${minInterval} s per block (INDEXER_MIN_BLOCK_INTERVAL is too high for this chain)`,
        );
      }
      if (above.timestamp - below.timestamp === least) {
        timestamps.set(block, below.timestamp + minInterval * (block - below.number));
      } else {
        const stretch = undecided.get(below.number) ?? [];
        stretch.push(block);
        undecided.set(below.number, stretch);
      }
    }
    const wanted = [...undecided.values()].flatMap((stretch) =>
      stretch.length <= SPREAD
        ? stretch
        : Array.from({ length: SPREAD }, (_, i) => stretch[Math.floor(((i + 0.5) * stretch.length) / SPREAD)]),
    );
    if (wanted.length === 0) break;
    const found = await read(wanted);
    for (const number of wanted) {
      const header = found.get(number);
      if (!header) return null;
      headers.set(number, header);
    }
    pending = [...undecided.values()].flat();
  }
  return { timestamps, headers };
}
