// The executor registry: executors are found by what they can do (their abilities), and one whose
// discovery fails (what it needs is not here) is registered but never available: not found, not listed.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";
import { ortExecutor, refExecutor, RefExecutor } from "../../src/index.js";

test("the package entry's executors are found by their abilities", () => {
  assert.equal(
    k.findExecutor((e) => e.abilities.sharesHostMemory),
    ortExecutor,
  );
  assert.equal(
    k.findExecutor((e) => e.abilities.loopForm === "scan"),
    refExecutor,
  );
  assert.equal(
    k.findExecutor((e) => e.abilities.reference),
    refExecutor,
  );
  // No XLA client was made in this process: nothing here runs on a GPU.
  assert.equal(
    k.findExecutor((e) => e.abilities.platforms.includes("gpu")),
    undefined,
  );
  assert.deepEqual(
    k.availableExecutors().map((e) => e.name),
    ["ort", "ref"],
  );
});

/** The reference interpreter under other names and abilities, as a third-party executor would register. */
class Interpreter extends RefExecutor {
  constructor(
    override readonly name: string,
    override readonly abilities: k.ExecutorAbilities,
  ) {
    super(2);
  }
}

test("an executor whose discovery fails is registered but not available, and says what it needs", () => {
  let asked = 0;
  const needy = new Interpreter("needy", { platforms: ["tpu"], sharesHostMemory: false, loopForm: "unrolled", reference: false });
  k.registerExecutor(needy, () => {
    asked++;
    return "the needy executor needs libneedy.so, which is not installed";
  });
  const ready = new Interpreter("ready", { platforms: ["tpu"], sharesHostMemory: false, loopForm: "unrolled", reference: false });
  k.registerExecutor(ready, () => undefined);

  assert.ok(k.registeredExecutors().includes(needy));
  assert.deepEqual(
    k.availableExecutors().map((e) => e.name),
    ["ort", "ref", "ready"],
  );
  // The first registered executor with the ability is passed over: it cannot run here.
  assert.equal(
    k.findExecutor((e) => e.abilities.platforms.includes("tpu")),
    ready,
  );
  const found = k.discoverExecutors().find((d) => d.executor === needy);
  assert.deepEqual(found, { executor: needy, missing: "the needy executor needs libneedy.so, which is not installed" });
  // Discovery runs once per executor, however often the registry is asked.
  k.discoverExecutors();
  assert.equal(asked, 1);
  // A second registration under a taken name is ignored.
  k.registerExecutor(new Interpreter("ready", ready.abilities));
  assert.equal(k.registeredExecutors().filter((e) => e.name === "ready").length, 1);
});
