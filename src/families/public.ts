/** Each family's public API, one line per family (the package's index re-exports them all). */
export * from "./gitgoodbench/public.js";
export * from "./swe/public.js";
export * from "./commit0/public.js";
