import { readFileSync } from "node:fs";

/** The package version, read from package.json next to the compiled sources. */
export function kilnVersion(): string {
  const url = new URL("../../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}
