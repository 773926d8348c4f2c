/** A window of committer dates, seconds since the epoch, both ends included (null: open). */
export interface DateWindow {
  since: number | null;
  until: number | null;
}

/** No window: every date is in it. */
export const ANY_DATE: DateWindow = { since: null, until: null };

/** Whether a committer time (seconds since the epoch) lies in the window. */
export function inWindow(window: DateWindow, seconds: number): boolean {
  return (window.since === null || seconds >= window.since) && (window.until === null || seconds <= window.until);
}

/** A committer time as samples carry it: ISO 8601 in UTC, to the second (`2025-06-01T12:00:00Z`). */
export function committedAt(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}
