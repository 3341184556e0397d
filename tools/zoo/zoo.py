#!/usr/bin/python3
"""The checks and the table of `make test-zoo` (tools/zoo/run.sh runs the steps; this reads their files).

    zoo.py row DIR                     DIR = BUILD/zoo/NAME: compare, write DIR/row.json, print one line
    zoo.py table OUT.md ROOT NAME...   the markdown table of ROOT/NAME/row.json, on stdout and in OUT.md;
                                       exit 1 when a check mismatched

A step's files (run.sh): STEP.time ("RC SECONDS"), STEP.err (its stderr), STEP.skip (why not run).
Matching rule of the fp32 checks: max |ovta - ref| <= 1e-4 x max |ref| (the "rel err" shown is the left
side over max |ref|), same shape, all finite.
"""
import json
import os
import sys

import numpy as np

RTOL = 1e-4


def status(d, step):
    """(return code or None when the step did not run, seconds)."""
    try:
        rc, s = open(os.path.join(d, step + ".time")).read().split()
        return int(rc), float(s)
    except (OSError, ValueError):
        return None, 0.0


def err_line(d, step):
    """The step's error line: the first line naming an error, else its last line."""
    try:
        lines = [l.strip() for l in open(os.path.join(d, step + ".err"), errors="replace") if l.strip()]
    except OSError:
        return ""
    for l in lines:
        if "error" in l.lower() or "refus" in l.lower() or "timed out" in l:
            return l[:300]
    return lines[-1][:300] if lines else ""


def failure(d, step):
    """'' when the step ran and succeeded, else a short word and the error line."""
    rc, _ = status(d, step)
    if rc is None:
        return "not run"
    if rc == 0:
        return ""
    what = "timeout" if rc == 124 else "crash (signal %d)" % (rc - 128) if rc > 128 else "refused"
    return "%s: %s" % (what, err_line(d, step))


def load(path):
    try:
        return np.load(path).astype(np.float64)
    except (OSError, ValueError):
        return None


def compare(a, r):
    """(relative max error, match) of a against the reference r."""
    if a is None or r is None or a.shape != r.shape or not np.all(np.isfinite(a)):
        return None, False
    scale = float(np.max(np.abs(r))) or 1.0
    e = float(np.max(np.abs(a - r))) / scale
    return e, e <= RTOL


def profile(path):
    try:
        p = json.load(open(path))
    except (OSError, ValueError):
        return None
    tot = sum(l["macs"] for l in p["layers"])
    acc = sum(l["macs"] for l in p["layers"] if l["where"] == "accel")
    return {"macs": tot, "accel_macs": acc, "cycles": p["totals"].get("cycles"),
            "accel_layers": sum(1 for l in p["layers"] if l["where"] == "accel"),
            "cpu_layers": sum(1 for l in p["layers"] if l["where"] != "accel")}


def row(d):
    name = os.path.basename(os.path.normpath(d))
    r = {"model": name, "notes": [], "mismatch": False}
    try:
        r["params"] = json.load(open(os.path.join(d, "meta.json")))["params"]
    except (OSError, ValueError):
        r["params"] = None
    r["time_s"] = round(sum(status(d, s)[1] for s in ("export", "cpu", "ort", "compile", "fsim", "tsim")), 1)
    if not os.path.exists(os.path.join(d, "model.onnx")):
        e = open(os.path.join(d, "export_error.txt")).read().strip() if os.path.exists(
            os.path.join(d, "export_error.txt")) else failure(d, "export")
        r["exported"] = "no"
        r["notes"].append("torch.onnx.export: " + e)
        return r
    r["exported"] = "yes"
    ref = load(os.path.join(d, "torch_out.npy"))
    cpu = load(os.path.join(d, "cpu", "logits.npy"))
    ort = load(os.path.join(d, "ort", "logits.npy"))
    f = failure(d, "cpu")
    if f:
        r["cpu"] = f.split(":")[0]
        r["notes"].append("ovta run: " + f)
    else:
        e, ok = compare(cpu, ref)
        r["cpu"] = ("%.1e" % e if e is not None else "bad output") + ("" if ok else " MISMATCH")
        r["mismatch"] |= not ok
    f = failure(d, "ort")
    if f:
        r["ort"] = "ort " + f.split(":")[0]
        r["notes"].append("onnxruntime: " + f)
    elif cpu is None:
        r["ort"] = "-"
    else:
        e, ok = compare(cpu, ort)
        r["ort"] = ("%.1e" % e if e is not None else "bad output") + ("" if ok else " MISMATCH")
        r["mismatch"] |= not ok
        e2, ok2 = compare(ort, ref)
        if not ok2:
            r["notes"].append("onnxruntime vs torch: %s" % ("%.1e" % e2 if e2 is not None else "bad output"))
    f = failure(d, "compile")
    if f:
        r["accel"] = r["cycles"] = r["cosine"] = "-"
        r["notes"].append("ovta compile --target accel: " + f)
        return r
    f = failure(d, "fsim")
    p = profile(os.path.join(d, "profile-fsim.json"))
    if f or p is None:
        r["accel"] = r["cycles"] = r["cosine"] = "-"
        r["notes"].append("ovta profile --backend fsim: " + (f or "no profile"))
        return r
    r["accel"] = "%.1f%%" % (100.0 * p["accel_macs"] / p["macs"]) if p["macs"] else "-"
    r["gmac"] = round(p["macs"] / 1e9, 3)
    q = load(os.path.join(d, "int8", "logits.npy"))
    if q is None or ref is None or q.shape != ref.shape:
        r["cosine"] = "bad output"
        r["mismatch"] = True
    else:
        q, t = q.ravel(), ref.ravel()
        cos = float(np.dot(q, t) / (np.linalg.norm(q) * np.linalg.norm(t) or 1.0))
        r["cosine"] = "%.4f" % cos + ("" if np.argmax(q) == np.argmax(t) else " (top-1 differs)")
    if os.path.exists(os.path.join(d, "tsim.skip")):
        r["cycles"] = "-"
        r["notes"].append("tsim " + open(os.path.join(d, "tsim.skip")).read().strip())
    else:
        f = failure(d, "tsim")
        pt = profile(os.path.join(d, "profile-tsim.json"))
        if f or pt is None:
            r["cycles"] = "-"
            r["notes"].append("ovta profile --backend tsim: " + (f or "no profile"))
        else:
            r["cycles"] = "{:,}".format(pt["cycles"])
            qt = load(os.path.join(d, "int8-tsim", "logits.npy"))
            if qt is None or q is None or qt.size != q.size or not np.array_equal(qt.ravel(), q.ravel()):
                r["notes"].append("tsim logits differ from fsim's")
                r["mismatch"] = True
    return r


COLS = [("model", "model"), ("params", "params (M)"), ("exported", "exported"), ("cpu", "CPU vs torch"),
        ("ort", "CPU vs ORT"), ("accel", "MACs on accel"), ("gmac", "GMAC"), ("cycles", "tsim cycles"),
        ("cosine", "int8 cosine vs torch"), ("time_s", "time (s)")]


def cell(r, k):
    v = r.get(k, "-")
    if k == "params" and v is not None and v != "-":
        return "%.1f" % (v / 1e6)
    return "-" if v is None else str(v)


def table(out, root, names):
    rows = []
    for n in names:
        try:
            rows.append(json.load(open(os.path.join(root, n, "row.json"))))
        except (OSError, ValueError):
            rows.append({"model": n, "exported": "not run", "notes": [], "mismatch": False})
    lines = ["| " + " | ".join(h for _, h in COLS) + " |", "|" + "---|" * len(COLS)]
    for r in rows:
        lines.append("| " + " | ".join(cell(r, k) for k, _ in COLS) + " |")
    notes = [(r["model"], n) for r in rows for n in r["notes"]]
    n_exp = sum(1 for r in rows if r.get("exported") == "yes")
    n_cpu = sum(1 for r in rows if str(r.get("cpu", "")).startswith(tuple("0123456789")) and "MISMATCH" not in r["cpu"])
    n_ort = sum(1 for r in rows if str(r.get("ort", "")).startswith(tuple("0123456789")) and "MISMATCH" not in r["ort"])
    n_q = sum(1 for r in rows if str(r.get("cosine", "-")).startswith("0") or str(r.get("cosine", "-")).startswith("1"))
    n_t = sum(1 for r in rows if r.get("cycles", "-") not in ("-", None))
    n_not = sum(1 for r in rows if r.get("exported") == "not run")
    head = ["%d models (%d not run): %d exported; fp32 CPU path matches torch on %d, onnxruntime on %d; int8 for "
            "the accelerator compiled and run on %d, on tsim %d; %d mismatch(es)."
            % (len(rows), n_not, n_exp, n_cpu, n_ort, n_q, n_t, sum(1 for r in rows if r.get("mismatch"))), ""]
    text = "\n".join(head + lines)
    if notes:
        text += "\n\nRefusals, mismatches and skips (the first error line of each step):\n\n" + "\n".join(
            "- `%s`: %s" % (m, n.replace("|", "\\|")) for m, n in notes)
    text += "\n"
    sys.stdout.write(text)
    with open(out, "w") as f:
        f.write(text)
    return 1 if any(r.get("mismatch") for r in rows) else 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "row":
        r = row(sys.argv[2])
        json.dump(r, open(os.path.join(sys.argv[2], "row.json"), "w"), indent=1)
        print("test-zoo: %s: exported %s, CPU vs torch %s, vs ORT %s, MACs on accel %s, tsim %s, int8 cosine %s%s"
              % (r["model"], r["exported"], r.get("cpu", "-"), r.get("ort", "-"), r.get("accel", "-"),
                 r.get("cycles", "-"), r.get("cosine", "-"), "".join("\n  " + n for n in r["notes"])))
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "table":
        return table(sys.argv[2], sys.argv[3], sys.argv[4:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
