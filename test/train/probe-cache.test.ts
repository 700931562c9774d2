// The executor probe's cache file: entries written atomically and read back under their key, another
// key (another CPU, Kiln, plugin, shape or request) not matching, a damaged file reported and replaced,
// and the directory it lives in ($XDG_CACHE_HOME/kiln, else ~/.cache/kiln).
import test from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import {
  defaultProbeCacheDir,
  findProbeEntry,
  machineKey,
  pluginIdentity,
  probedWhileBusy,
  readProbeCache,
  storeProbeEntry,
  type ProbeEntry,
  type ProbeKey,
} from "../../src/train/probe-cache.js";
import { tempDir } from "../helpers/temp-dir.js";

const key: ProbeKey = {
  ...machineKey(),
  kiln: "1.2.3",
  plugin: "none",
  shape: JSON.stringify({ model_type: "roberta", width: 256 }),
  request: "32 on ort,xla",
};

function entry(k: ProbeKey, ortMs: number, xlaMs: number): ProbeEntry {
  return {
    key: k,
    probedAt: "2026-01-02T03:04:05.000Z",
    timings: [
      { executor: "ort", precision: "32", stepSeconds: ortMs / 1000, compileSeconds: 0.5, timedSteps: 3 },
      { executor: "xla", precision: "32", stepSeconds: xlaMs / 1000, compileSeconds: 3, timedSteps: 3 },
    ],
  };
}

test("an entry is written atomically and read back under its key; another key does not match", async () => {
  const dir = tempDir("kiln-probe-cache-");
  const path = join(dir, "sub", "executor-probe.json");
  await storeProbeEntry(path, entry(key, 100, 80));
  await storeProbeEntry(path, entry({ ...key, shape: JSON.stringify({ model_type: "llama", width: 256 }) }, 90, 120));
  // Stored again under the same key: replaced, not added.
  await storeProbeEntry(path, entry(key, 100, 70));
  assert.deepEqual(readdirSync(join(dir, "sub")), ["executor-probe.json"], "no temporary file is left beside it");
  const { entries, problem } = await readProbeCache(path);
  assert.equal(problem, undefined);
  assert.equal(entries.length, 2);
  assert.equal(findProbeEntry(entries, key)?.timings[1]!.stepSeconds, 0.07);
  for (const other of [
    { ...key, cpu: "another CPU" },
    { ...key, cores: key.cores + 1 },
    { ...key, kiln: "1.2.4" },
    { ...key, plugin: "/elsewhere/xla.so, 10 bytes, changed 2026-01-01T00:00:00.000Z" },
    { ...key, shape: JSON.stringify({ model_type: "roberta", width: 512 }) },
    { ...key, request: "auto on ort,xla" },
  ])
    assert.equal(findProbeEntry(entries, other), undefined, JSON.stringify(other));
});

test("a missing file is an empty cache; a damaged one is reported and replaced by the next write", async () => {
  const dir = tempDir("kiln-probe-cache-");
  const path = join(dir, "executor-probe.json");
  assert.deepEqual(await readProbeCache(path), { entries: [] });
  for (const [text, says] of [
    ['{"version": 1, "entries": [', "is not valid JSON"],
    ['{"version": 2, "entries": []}', "does not hold version 1 probe entries"],
    ['{"version": 1, "entries": [{"key": {}}]}', "does not hold version 1 probe entries"],
  ]) {
    writeFileSync(path, text!);
    const { entries, problem } = await readProbeCache(path);
    assert.equal(entries.length, 0);
    assert.ok(problem?.includes(path) && problem.includes(says!), problem);
  }
  await storeProbeEntry(path, entry(key, 100, 80));
  const again = await readProbeCache(path);
  assert.equal(again.problem, undefined);
  assert.equal(again.entries.length, 1);
  assert.equal(JSON.parse(readFileSync(path, "utf8")).version, 1);
});

test("the cache lives in $XDG_CACHE_HOME/kiln, else ~/.cache/kiln; a plugin is known by path, size and time", async () => {
  assert.equal(defaultProbeCacheDir({ XDG_CACHE_HOME: "/var/cache/me" }), "/var/cache/me/kiln");
  assert.equal(defaultProbeCacheDir({}), join(homedir(), ".cache", "kiln"));
  // The XDG spec ignores a relative path.
  assert.equal(defaultProbeCacheDir({ XDG_CACHE_HOME: "relative" }), join(homedir(), ".cache", "kiln"));
  const dir = tempDir("kiln-probe-cache-");
  const so = join(dir, "plugin.so");
  writeFileSync(so, "12345");
  assert.match(await pluginIdentity(so), new RegExp(`^${so}, 5 bytes, changed \\d{4}-`));
  assert.equal(await pluginIdentity(undefined), "none");
});

test("an entry measured while the load exceeded the cores is marked busy; the load is kept in the file", async () => {
  const dir = tempDir("kiln-probe-cache-");
  const path = join(dir, "executor-probe.json");
  const busy = { ...entry(key, 100, 80), load: key.cores + 0.5 };
  assert.equal(probedWhileBusy(busy), true);
  assert.equal(probedWhileBusy({ ...busy, load: key.cores - 0.5 }), false);
  assert.equal(probedWhileBusy(entry(key, 100, 80)), false, "no load known: not said to be busy");
  await storeProbeEntry(path, busy);
  assert.equal(findProbeEntry((await readProbeCache(path)).entries, key)?.load, key.cores + 0.5);
  writeFileSync(path, JSON.stringify({ version: 1, entries: [{ ...busy, load: "high" }] }));
  assert.match((await readProbeCache(path)).problem!, /does not hold version 1 probe entries/);
});
