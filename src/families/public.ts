/** Each family's public API, one line per family (the package's index re-exports them all). */
export * from "./swe/public.js";
export * from "./commit0/public.js";
