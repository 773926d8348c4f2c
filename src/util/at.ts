import { GitGoodError } from "../errors.js";

/**
 * The item at index `i` of a list the caller knows holds one there (a loop bound, a regular expression's
 * required group, the pair of a zip). An index out of range is a bug of gitgood: it fails here, naming
 * the index, instead of carrying `undefined` on as the asserted type.
 */
export function at<T>(items: ArrayLike<T>, i: number): T {
  const item = items[i];
  if (item === undefined) throw new GitGoodError("INTERNAL", `no item at index ${i} of a list of ${items.length}`);
  return item;
}
