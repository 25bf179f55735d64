#!/usr/bin/python3
"""File: tests/tools/export_torch_test.py

End-to-end test of tools/export_torch.py: exports resnet18 (batch 2, 64x64)
and a tiny user model, reads the graphs back with the devplace binary
(`inspect`, `simulate` on k80x2 with the cpu and single-gpu placements), and
checks the bad-input cases (exit code 2, one line on stderr).

Run by CTest (tests/CMakeLists.txt):
    /usr/bin/python3 export_torch_test.py --devplace BUILD/devplace --exporter tools/export_torch.py
Exits 0 when every check passes, 1 otherwise (each failure printed).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

PYTHON = "/usr/bin/python3"  # Debian's torch is importable only from this interpreter
HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", flush=True)
    return cond


def run(cmd, cwd=None):
    t0 = time.time()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # no __pycache__ in the source tree
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=300)
    print(f"[{time.time() - t0:5.1f} s] rc={p.returncode}: {' '.join(cmd)}", flush=True)
    return p


def stderr_lines(p):
    return [line for line in p.stderr.splitlines() if line.strip()]


def devplace_json(devplace, *args):
    p = run([devplace, *args, "--json"])
    if not check(p.returncode == 0, f"devplace {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}"):
        return None
    return json.loads(p.stdout)


def check_graph_file(doc, label):
    """Structure the devplace reader also checks, plus what the exporter promises."""
    check(doc.get("format") == "devplace-graph" and doc.get("version") == 1, f"{label}: format/version")
    ops = doc["ops"]
    op_names = [o["name"] for o in ops]
    check(len(op_names) == len(set(op_names)), f"{label}: op names unique")
    tensors = [t["name"] for o in ops for t in o.get("outputs", [])]
    check(len(tensors) == len(set(tensors)), f"{label}: tensor names unique")
    known = set(tensors)
    dangling = [(o["name"], i) for o in ops for i in o.get("inputs", []) if i not in known]
    check(not dangling, f"{label}: inputs name outputs of some op (dangling: {dangling[:3]})")
    untimed = [o["name"] for o in ops if "cpu" not in o.get("measured_time_s", {})]
    check(not untimed, f"{label}: every op has measured_time_s.cpu (missing: {untimed[:3]})")
    return ops


def check_resnet18(args, tmp):
    out = os.path.join(tmp, "resnet18.json")
    p = run([PYTHON, args.exporter, "resnet18", "--batch", "2", "--image-size", "64", "--repeats", "3", "--out", out])
    if not check(p.returncode == 0, f"export resnet18: exit {p.returncode}: {p.stderr.strip()}"):
        return
    lines = stderr_lines(p)
    check(len(lines) == 1 and "resnet18" in lines[0] and "ops" in lines[0], f"export resnet18: one summary line, got {lines}")
    with open(out) as f:
        doc = json.load(f)
    ops = check_graph_file(doc, "resnet18")

    # Parameter bytes as torchvision counts them (float32: 4 bytes per element).
    import torchvision
    model = torchvision.models.resnet18()
    expected_param_bytes = sum(p.numel() * 4 for p in model.parameters())
    num_params = len(list(model.parameters()))

    by_phase = {}
    for o in ops:
        by_phase.setdefault(o.get("phase", "forward"), []).append(o)
    check(set(by_phase) == {"forward", "backward", "update"}, f"resnet18: phases {sorted(by_phase)}")
    params = [o for o in ops if o["type"] == "Parameter"]
    updates = [o for o in ops if o.get("phase") == "update"]
    check(len(params) == num_params, f"resnet18: {len(params)} Parameter ops, expected {num_params}")
    check(len(updates) == num_params and all(o["type"] == "ApplyAdam" for o in updates),
          f"resnet18: one ApplyAdam per parameter, got {len(updates)}")
    check(any(o["type"] == "Input" and o.get("kernels") == ["cpu"] for o in ops), "resnet18: an Input op with kernels [cpu]")
    # Saved activations: backward ops read forward tensors.
    producer_phase = {t["name"]: o.get("phase", "forward") for o in ops for t in o.get("outputs", [])}
    crossing = sum(1 for o in by_phase.get("backward", []) for i in o.get("inputs", [])
                   if producer_phase.get(i) == "forward")
    check(crossing > 50, f"resnet18: edges from forward to backward ops ({crossing})")
    # Adam: 2x state, 12 FLOPs per element, update reads a backward op's gradient.
    by_name = {o["name"]: o for o in ops}
    for u in updates:
        param = by_name[u["forward_op"]]
        pb = param["parameter_bytes"]
        ok = (u.get("optimizer_state_bytes") == 2 * pb and u.get("flops") == 12 * pb // 4 and
              u.get("memory_traffic_bytes") == 3 * pb + 4 * pb and producer_phase.get(u["inputs"][0]) == "backward")
        # Co-location: parameter, its update and the op producing its gradient share a group.
        grad_op = next(o for o in ops if any(t["name"] == u["inputs"][0] for t in o.get("outputs", [])))
        group = param.get("colocation_group")
        ok = ok and group and u.get("colocation_group") == group and grad_op.get("colocation_group") == group
        if not check(ok, f"resnet18: update op {u['name']} (state, flops, traffic, group)"):
            break
    convs = [o for o in ops if o["type"] in ("convolution", "convolution_backward")]
    check(len(convs) == 40 and all(o.get("flops", 0) > 0 for o in convs), "resnet18: FLOPs on every convolution op")
    check(len({o.get("layer", -1) for o in ops}) >= 8, "resnet18: layer marks from the top-level modules")
    measured_total = sum(o["measured_time_s"]["cpu"] for o in ops)

    info = devplace_json(args.devplace, "inspect", "--graph", out)
    if info:
        check(info["ops"] == len(ops) and info["ops"] > 100, f"inspect: ops {info['ops']} (file {len(ops)}, want > 100)")
        check(info["parameter_bytes"] == expected_param_bytes,
              f"inspect: parameter_bytes {info['parameter_bytes']}, torchvision says {expected_param_bytes}")
        check(all(info["phases"].get(ph) == len(by_phase[ph]) for ph in by_phase), f"inspect: phases {info['phases']}")
        check(info.get("training_step") is True, "inspect: training_step")

    gpu = devplace_json(args.devplace, "simulate", "--graph", out, "--cluster", "k80x2", "--placement", "single-gpu")
    if gpu:
        check(math.isfinite(gpu["step_time_s"]) and gpu["step_time_s"] > 0 and not gpu["oom"],
              f"simulate single-gpu: step {gpu['step_time_s']}, oom {gpu['oom']}")
    cpu = devplace_json(args.devplace, "simulate", "--graph", out, "--cluster", "k80x2", "--placement", "cpu")
    if cpu:
        # One device, no transfers: the step is the sum of the measured CPU times.
        check(not cpu["oom"] and math.isclose(cpu["step_time_s"], measured_total, rel_tol=1e-6, abs_tol=1e-9),
              f"simulate cpu: step {cpu['step_time_s']} s, sum of measured cpu times {measured_total} s")
    if gpu and cpu:
        print(f"resnet18: {len(ops)} ops {dict((k, len(v)) for k, v in by_phase.items())}, "
              f"{expected_param_bytes} parameter bytes, measured cpu {measured_total:.4f} s, "
              f"k80x2 cpu {cpu['step_time_s']:.4f} s, single-gpu {gpu['step_time_s']:.5f} s", flush=True)


def check_user_model(args, tmp):
    out = os.path.join(tmp, "tiny.json")
    p = run([PYTHON, args.exporter, "--model", "tiny_model:build", "--repeats", "1", "--optimizer", "sgd",
             "--out", out], cwd=HERE)
    if not check(p.returncode == 0, f"export --model tiny_model:build: exit {p.returncode}: {p.stderr.strip()}"):
        return
    check("loss sum" in p.stderr, f"tiny: a 3-D output gets the sum loss ({p.stderr.strip()})")
    with open(out) as f:
        ops = check_graph_file(json.load(f), "tiny")
    flops = {o["type"] for o in ops if o.get("flops", 0) > 0 and o.get("phase") != "update"}
    check({"bmm", "addmm", "mm", "convolution", "convolution_backward"} <= flops, f"tiny: FLOPs on {sorted(flops)}")
    check(all(o["type"] == "ApplyGradientDescent" and "optimizer_state_bytes" not in o
              for o in ops if o.get("phase") == "update"), "tiny: --optimizer sgd")
    tied = [o for o in ops if o["type"] == "Parameter" and o["name"] == "embed.weight"]
    check(len(tied) == 1, "tiny: the tied embedding weight is one Parameter op")
    sim = devplace_json(args.devplace, "simulate", "--graph", out, "--cluster", "k80x2", "--placement", "single-gpu")
    if sim:
        check(math.isfinite(sim["step_time_s"]) and not sim["oom"], f"tiny: simulate single-gpu {sim['step_time_s']}")


def check_bad_inputs(args, tmp):
    cases = [
        (["resnet19"], "resnet19"),                          # unknown model name
        (["resnet18", "--batch", "0"], "--batch"),
        (["resnet18", "--batch", "two"], "--batch"),
        (["resnet18", "--frobnicate"], "--frobnicate"),
        ([], "model"),                                       # neither a name nor --model
        (["--model", "no_such_module_xyz:build"], "no_such_module_xyz"),
        (["--model", "tiny_model"], "MODULE:FUNCTION"),
        (["resnet18", "--out", os.path.join(tmp, "no", "such", "dir.json")], "--out"),
    ]
    for argv, mention in cases:
        p = run([PYTHON, args.exporter, *argv], cwd=HERE)
        lines = stderr_lines(p)
        check(p.returncode == 2 and len(lines) == 1 and mention in lines[0] and "Traceback" not in p.stderr
              and not p.stdout, f"bad input {argv}: want exit 2 and one line naming {mention!r}, "
                                f"got exit {p.returncode}, stderr {lines}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--devplace", required=True)
    ap.add_argument("--exporter", required=True)
    args = ap.parse_args()
    args.devplace = os.path.abspath(args.devplace)
    args.exporter = os.path.abspath(args.exporter)  # some runs use the test's folder as working directory
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="export_torch_test.") as tmp:
        check_bad_inputs(args, tmp)
        check_resnet18(args, tmp)
        check_user_model(args, tmp)
    print(f"export_torch_test: {len(failures)} failure(s) in {time.time() - t0:.1f} s", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
