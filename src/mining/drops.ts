import type { SampleType } from "../dataset/sample.js";

/** Why a candidate did not become a sample. Stable strings: they appear in `--json` summaries. */
export const DROP_REASONS = {
  merge: {
    octopus: "more than two parents",
    no_conflict: "re-merge is clean",
    non_pl_file: "a file of the remerge-diff (conflicted, or edited in the merge) is not in a mined language",
    no_marker_conflict: "no conflicted file has a marker region (only modify/delete, rename, binary conflicts)",
    too_many_conflicts: "more conflict regions than --max-conflicts",
    missing_objects: "objects missing (partial clone) or git could not re-merge",
    shallow: "a parent lies beyond the shallow boundary",
    outside_dates: "the merge was committed outside --since/--until",
  },
  file_commit_chain: {
    too_short: "run shorter than --min-chain (single changes are not counted)",
    too_long: "run longer than --max-chain (dropped, not cut)",
    file_added: "the file is added, not modified, in the oldest commit",
    impure: "purity below --min-purity",
    no_line_changes: "no changed lines in the chain (binary or mode-only changes)",
    shallow: "the run reaches the shallow boundary, so its length is unknown",
    missing_objects: "objects missing (partial clone) in a commit of the run",
    outside_dates: "the chain's newest commit was committed outside --since/--until",
  },
} as const;

/** Why a merge did not become a sample: a key of `DROP_REASONS.merge`. */
export type MergeDrop = keyof (typeof DROP_REASONS)["merge"];
/** Why a file-commit chain did not become a sample: a key of `DROP_REASONS.file_commit_chain`. */
export type ChainDrop = keyof (typeof DROP_REASONS)["file_commit_chain"];

/** Counts drops per sample type and reason. */
export class DropCounter {
  readonly counts: { merge: Partial<Record<MergeDrop, number>>; file_commit_chain: Partial<Record<ChainDrop, number>> } = {
    merge: {},
    file_commit_chain: {},
  };

  merge(reason: MergeDrop, n = 1): void {
    this.counts.merge[reason] = (this.counts.merge[reason] ?? 0) + n;
  }

  chain(reason: ChainDrop, n = 1): void {
    this.counts.file_commit_chain[reason] = (this.counts.file_commit_chain[reason] ?? 0) + n;
  }

  /** The counts with reasons in the order of DROP_REASONS, whatever order they came in (parallel passes). */
  ordered(): DropCounter["counts"] {
    const pick = <K extends string>(counts: Partial<Record<K, number>>, reasons: Record<K, string>): Partial<Record<K, number>> => {
      const out: Partial<Record<K, number>> = {};
      for (const reason of Object.keys(reasons) as K[]) if (counts[reason] !== undefined) out[reason] = counts[reason];
      return out;
    };
    return {
      merge: pick(this.counts.merge, DROP_REASONS.merge),
      file_commit_chain: pick(this.counts.file_commit_chain, DROP_REASONS.file_commit_chain),
    };
  }

  total(type: SampleType): number {
    return Object.values(this.counts[type]).reduce((a: number, b) => a + (b ?? 0), 0);
  }
}
