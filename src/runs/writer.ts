import { GitGoodError } from "../errors.js";
import { ResultRecordSchema, type ResultRecord } from "./record.js";
import type { Settled } from "./types.js";
import { trajectoryPath, type RunStore } from "./store.js";
import { TrajectorySchema } from "./trajectory.js";

/**
 * The one writer of a run directory: every settled attempt, from whichever executor ran it (this
 * process's pool, a worker on another machine), reaches the directory through `write`. The trajectory
 * is written first, then the record appended (one record per key: a later one replaces an earlier), so
 * a record always names a trajectory that is there. What an executor returns is checked, not trusted:
 * a record or trajectory that does not match its schema is refused, and the trajectory goes where the
 * writer says its key's trajectory goes, whatever path the record names.
 */
export class RunWriter {
  constructor(readonly store: RunStore) {}

  write(settled: Settled): ResultRecord {
    const record = ResultRecordSchema.safeParse(settled.record);
    if (!record.success) throw new GitGoodError("BAD_RUN", "an executor returned a record that does not match the results schema");
    const trajectory = TrajectorySchema.safeParse(settled.trajectory);
    if (!trajectory.success) throw new GitGoodError("BAD_RUN", `an executor returned a trajectory for ${record.data.key} that does not match its schema`);
    const r: ResultRecord = { ...settled.record, trajectory: trajectoryPath(record.data.key) };
    this.store.writeTrajectory(r.key, settled.trajectory);
    this.store.append(r);
    return r;
  }
}
