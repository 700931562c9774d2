# The device check's report: DIR/gpu-report.json (one object: the machine, then every section so far) and
# DIR/gpu-report.md (the same as tables), both rewritten atomically after each section, so that a run cut
# at any point still leaves a complete report of what it did. Plain python3 (standard library only): it
# must work before, and without, anything else the check needs.
#
#   python3 report.py init --out DIR --platform gpu|cpu --command "..." [--node NODE] [--kiln DIR]
#   python3 report.py section --out DIR --name NAME --status passed|failed|timed-out|not-run --seconds S
#                             [--budget S] [--figures FILE.json] [--note TEXT]
import argparse, datetime, json, os, platform, shutil, subprocess, sys
from importlib import metadata

STATUSES = ("passed", "failed", "timed-out", "not-run")


def write_atomic(path, text):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def run(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
        return r.stdout.strip() if r.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def machine(node, kiln):
    facts = {"hostname": platform.node(), "kernel": platform.release(), "cpus": os.cpu_count(),
             "python": f"{sys.version.split()[0]} ({sys.executable})"}
    smi = None
    if shutil.which("nvidia-smi"):
        smi = run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm", "--format=csv,noheader"]) or \
            run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"])
    if smi:
        gpus = [[x.strip() for x in line.split(",")] for line in smi.splitlines()]
        facts["gpus"] = [{"name": g[0], "driver": g[1], "memory": g[2], "max_sm_clock": g[3] if len(g) > 3 else None} for g in gpus]
        facts["cuda"] = (run(["nvidia-smi"]) or "").split("CUDA Version:")[-1].split("|")[0].strip() or None
    else:
        facts["gpus"] = "nvidia-smi not found" if not shutil.which("nvidia-smi") else "nvidia-smi failed"
    for pkg in ("torch", "transformers", "jax", "jaxlib", "jax-cuda13-pjrt", "jax-cuda13-plugin", "optax", "numpy"):
        try:
            facts[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            facts[pkg] = None
    facts["node"] = run([node, "--version"]) if node else None
    if kiln:
        manifest = os.path.join(kiln, "..", "MANIFEST.json")
        if os.path.exists(manifest):
            with open(manifest) as f:
                m = json.load(f)
            git = m.get("git") or {}
            facts["kiln_commit"] = git.get("commit", "") + (" (with uncommitted changes)" if git.get("dirty") else "")
        else:
            facts["kiln_commit"] = run(["git", "-C", kiln, "rev-parse", "HEAD"])
    return facts


def load(out):
    with open(os.path.join(out, "gpu-report.json")) as f:
        return json.load(f)


def cell(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e6 else f"{v:,.0f}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}" if abs(v) >= 10000 else str(v)
    if isinstance(v, (dict, list)):
        v = json.dumps(v, separators=(",", ":"))
    return str(v).replace("|", "\\|").replace("\n", " ")[:300]


def table_of_rows(rows):
    cols = []
    for r in rows:
        for k, v in r.items():
            if k not in cols and not (isinstance(v, list) and v and isinstance(v[0], dict)):
                cols.append(k)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in cols) + " |" for r in rows]
    return lines


def render(value, depth=3):
    """Scalars of an object as a two-column table; lists of objects as tables of their own, under their key."""
    lines = []
    if isinstance(value, list):
        if value and all(isinstance(x, dict) for x in value):
            lines += table_of_rows(value) + [""]
            for i, x in enumerate(value):
                for k, v in x.items():
                    if isinstance(v, list) and v and isinstance(v[0], dict):
                        title = " ".join(cell(x.get(t)) for t in ("task", "preset", "precision", "name", "batch") if t in x)
                        lines += [f"{'#' * min(depth + 1, 6)} {title or i}: {k}", ""] + render(v, depth + 1)
        elif value:
            lines += [", ".join(cell(x) for x in value), ""]
        return lines
    if isinstance(value, dict):
        scalars = {k: v for k, v in value.items() if not isinstance(v, (dict, list)) or
                   (isinstance(v, list) and not (v and isinstance(v[0], dict)))}
        if scalars:
            lines += ["| | |", "|---|---|"] + [f"| {k} | {cell(v)} |" for k, v in scalars.items()] + [""]
        for k, v in value.items():
            if isinstance(v, dict) or (isinstance(v, list) and v and isinstance(v[0], dict)):
                lines += [f"{'#' * min(depth + 1, 6)} {k}", ""] + render(v, depth + 1)
        return lines
    return [cell(value), ""]


def markdown(rep):
    lines = [f"# Kiln device check ({rep['platform']})", "", f"Command: `{rep['command']}`", "",
             f"Started {rep['started']}; last updated {rep['updated']}.", "", "## Machine", ""]
    lines += render(rep["machine"], 2)
    lines += ["## Sections", "", "| section | status | seconds | budget | note |", "|---|---|---|---|---|"]
    for s in rep["sections"]:
        lines.append(f"| {s['name']} | {s['status']} | {cell(s['seconds'])} | {cell(s.get('budget_s'))} | {cell(s.get('note'))} |")
    lines.append("")
    for s in rep["sections"]:
        lines += [f"## {s['name']}: {s['status']}", ""]
        if s.get("note"):
            lines += [s["note"], ""]
        if s.get("figures") is not None:
            lines += render(s["figures"], 2)
    return "\n".join(lines) + "\n"


def save(out, rep):
    rep["updated"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    write_atomic(os.path.join(out, "gpu-report.json"), json.dumps(rep, indent=1) + "\n")
    write_atomic(os.path.join(out, "gpu-report.md"), markdown(rep))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["init", "section"])
    p.add_argument("--out", required=True)
    p.add_argument("--platform")
    p.add_argument("--command", default="")
    p.add_argument("--node")
    p.add_argument("--kiln")
    p.add_argument("--name")
    p.add_argument("--status", choices=STATUSES)
    p.add_argument("--seconds", type=float)
    p.add_argument("--budget", type=float)
    p.add_argument("--figures")
    p.add_argument("--note")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.what == "init":
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        save(a.out, {"check": "kiln device check", "platform": a.platform, "command": a.command, "started": now,
                     "machine": machine(a.node, a.kiln), "sections": []})
        return
    if not (a.name and a.status and a.seconds is not None):
        sys.exit("report.py section: --name, --status and --seconds are required")
    rep = load(a.out)
    figures = None
    if a.figures and os.path.exists(a.figures) and os.path.getsize(a.figures) > 0:
        with open(a.figures) as f:
            try:
                figures = json.load(f)
            except json.JSONDecodeError as e:
                figures = {"unreadable": f"{a.figures}: {e}"}
    section = {"name": a.name, "status": a.status, "seconds": round(a.seconds, 1), "budget_s": a.budget,
               "note": a.note, "figures": figures}
    rep["sections"] = [s for s in rep["sections"] if s["name"] != a.name] + [section]
    save(a.out, rep)


if __name__ == "__main__":
    main()
