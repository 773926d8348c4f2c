/**
 * Recognises the common licenses from the text of a LICENSE/COPYING file and names them with the
 * SPDX ids GitHub reports. Returns null for anything it cannot tell with confidence.
 */
export function detectLicense(text: string): string | null {
  const t = text.replace(/\s+/g, " ").toLowerCase();
  if (t.includes("gnu affero general public license")) return "AGPL-3.0";
  if (t.includes("gnu lesser general public license")) {
    return t.includes("version 3") ? "LGPL-3.0" : t.includes("version 2.1") ? "LGPL-2.1" : null;
  }
  if (t.includes("gnu general public license")) {
    if (t.includes("version 3")) return "GPL-3.0";
    if (t.includes("version 2")) return "GPL-2.0";
    return null;
  }
  if (t.includes("apache license") && t.includes("version 2.0")) return "Apache-2.0";
  if (t.includes("mozilla public license") && t.includes("2.0")) return "MPL-2.0";
  if (t.includes("permission is hereby granted, free of charge, to any person obtaining a copy")) return "MIT";
  if (t.includes("redistribution and use in source and binary forms")) {
    return t.includes("neither the name") || /3\.\s*(all advertising|the name|neither)/.test(t)
      ? "BSD-3-Clause"
      : "BSD-2-Clause";
  }
  if (t.includes("permission to use, copy, modify, and/or distribute this software for any purpose")) return "ISC";
  if (t.includes("this is free and unencumbered software released into the public domain")) return "Unlicense";
  return null;
}

/** The licenses GitGoodBench's repository filter accepts. */
export const PERMISSIVE_LICENSES: readonly string[] = ["MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause"];

/** File names (at the repository root) that hold a license, best first. */
export const LICENSE_FILE = /^(?:licen[cs]e|copying)(?:[.-](?:md|txt|rst|mit|apache|bsd))?$/i;
