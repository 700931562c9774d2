// The malloc tunables kiln launch gives its processes (src/launch/host-malloc-env.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { launchedGlibcTunables } from "../../src/launch/host-malloc-env.js";

test("on Linux, glibc.malloc.hugetlb=1 is added to the tunables, after any the user set", () => {
  assert.equal(launchedGlibcTunables(undefined, "linux"), "glibc.malloc.hugetlb=1");
  assert.equal(launchedGlibcTunables("", "linux"), "glibc.malloc.hugetlb=1");
  assert.equal(launchedGlibcTunables("glibc.malloc.arena_max=2", "linux"), "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
});

test("a hugetlb setting of the user's own stands, and other systems get the variable as it was", () => {
  assert.equal(launchedGlibcTunables("glibc.malloc.hugetlb=0", "linux"), "glibc.malloc.hugetlb=0");
  assert.equal(
    launchedGlibcTunables("glibc.pthread.rseq=0:glibc.malloc.hugetlb=2", "linux"),
    "glibc.pthread.rseq=0:glibc.malloc.hugetlb=2",
  );
  // A name that only ends like the tunable is not it.
  assert.equal(launchedGlibcTunables("x.glibc.malloc.hugetlb=0", "linux"), "x.glibc.malloc.hugetlb=0:glibc.malloc.hugetlb=1");
  assert.equal(launchedGlibcTunables(undefined, "darwin"), undefined);
  assert.equal(launchedGlibcTunables("glibc.malloc.arena_max=2", "win32"), "glibc.malloc.arena_max=2");
});
