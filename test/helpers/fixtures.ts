// Paths of committed test fixtures (the tests run from dist/, the fixtures stay in the source tree).
import { fileURLToPath } from "node:url";
import { join } from "node:path";

export const FIXTURES = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "..", "test", "fixtures");

export function fixture(name: string): string {
  return join(FIXTURES, name);
}
