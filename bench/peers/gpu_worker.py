# The line protocol between the device check's throughput section (bench/device/throughput.ts) and one
# contender process: the contender builds its model once, then answers each request on stdin, one JSON object
# a line: {"batch": B, "steps": N} runs N timed training steps at batch B (the first request at a batch also
# compiles and warms up, timed apart) and answers one JSON line {"worker": ..., "batch", "steps", "seconds",
# "tokens_per_s", "compile_s", "peak_bytes", "loss", "params"}; end of input or {"exit": true} ends it.
# Keeping the process alive between requests is what lets contenders take turns round after round without
# paying their compile time again. Libraries' own prints go to stderr: stdout carries only the answers.
import json, os, sys, time


def serve(name, make_session, tokens_per_row, params, peak_bytes):
    """make_session(batch) -> run(n): runs n steps, waits for the device, returns the last loss."""
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything printed from here on lands on stderr
    sessions, compile_s = {}, {}
    out.write(json.dumps({"worker": name, "ready": True, "params": params}) + "\n")
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        if req.get("exit"):
            break
        b, n = int(req["batch"]), int(req["steps"])
        if b not in sessions:
            t0 = time.perf_counter()
            sessions[b] = make_session(b)
            sessions[b](1)  # the first step: compilation (torch.compile, jit), kernel selection, allocation
            first = time.perf_counter() - t0
            t1 = time.perf_counter()
            sessions[b](2)
            steady = (time.perf_counter() - t1) / 2
            compile_s[b] = max(first - steady, 0.0)
        t0 = time.perf_counter()
        loss = sessions[b](n)
        s = time.perf_counter() - t0
        out.write(json.dumps({"worker": name, "batch": b, "steps": n, "seconds": s, "tokens_per_s": b * tokens_per_row * n / s,
                              "compile_s": compile_s[b], "peak_bytes": peak_bytes(), "loss": loss, "params": params}) + "\n")
