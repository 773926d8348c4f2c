/** Runs of each side of a validation (`--runs`): a test counts only with the same outcome in all of them. */
export const DEFAULT_SWE_RUNS = 3;
