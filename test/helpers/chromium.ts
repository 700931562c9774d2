// Headless Chromium for browser tests: Debian's package (scripts/setup-browser.sh installs it), driven by
// playwright-core. Where it is missing the tests skip with one reason, except in CI, where they fail.
import { existsSync } from "node:fs";

export const CHROMIUM = "/usr/bin/chromium";

/** A quiet, offline browser: nothing but the page's own requests reach the network. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const chromiumSkip: string | false =
  existsSync(CHROMIUM) || process.env.CI === "true" ? false : `${CHROMIUM} is not installed (scripts/setup-browser.sh installs it)`;
