import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import type { Sample } from "../../src/dataset/sample.js";
import type { ViewHandle } from "../../src/view/server.js";
import type { Fixture } from "./fixture.js";
import { buildRunFixture, tempDirs } from "./runs.js";

/** Debian's chromium; a test never downloads a browser. */
export const CHROMIUM = process.env.GITGOOD_CHROMIUM ?? "/usr/bin/chromium";
/** No chromium here: the browser tests skip themselves. */
export const noBrowser = !existsSync(CHROMIUM);

/** What a viewer test of a live run works with: the run fixture, run directories, a chromium page and the viewer it starts. */
export interface RunInBrowser {
  fx: Fixture;
  samples: Sample[];
  dirs: ReturnType<typeof tempDirs>;
  page: Page;
  /** Set by the test once it serves a run; closed after the file's tests. */
  viewer?: ViewHandle;
}

/**
 * Registers the file's set-up (the run fixture, run directories, chromium and one page) and clean-up (the
 * browser, the viewer the test started, the directories, the fixture); the fields are filled before its tests run.
 */
export function runInBrowser(): RunInBrowser {
  const held = {} as RunInBrowser;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (noBrowser) return;
    ({ fx: held.fx, samples: held.samples } = await buildRunFixture());
    held.dirs = tempDirs();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
    held.page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await held.viewer?.close();
    held.dirs?.cleanup();
    held.fx?.remove();
  });
  return held;
}
