import type { Sample } from "../dataset/sample.js";
import type { AnyScenarioDefinition } from "../scenarios/definition.js";
import type { ResultRecord } from "./record.js";
import type { Trajectory } from "./trajectory.js";

/*
 * The run's own types, a leaf every file of runs/ may import: a planned job, and an attempt settled.
 */

/** One sample × scenario the runner works (twice with `--memory`: without and with the memory tools). */
export interface Job {
  sample: Sample;
  scenario: AnyScenarioDefinition;
  key: string;
  /** This run of the scenario offers the agent the memory tools. */
  memory: boolean;
  /** Which of `--repeats` runs of the sample × scenario this is (0-based). */
  repeat: number;
}

/** A settled attempt: its record and its trajectory, written by nobody yet (the run's writer appends them). */
export interface Settled {
  record: ResultRecord;
  trajectory: Trajectory;
}
