#!/usr/bin/env python3
"""Runs every case of the interpreter's UI corpus (compiler/interp/tests/ui: a `.sk` file and its `.json` launch)
on the CPU interpreter and on the GPU with `skc run`, and compares the vectors each writes.

Usage: scripts/interp_gpu_agree.py SKC [CASE_DIR]

A case the interpreter reports a problem in (an R-code: a race, an overflow, an out-of-bounds access, a hang) is
listed and not compared: its GPU result is undefined. Floats are compared to 1e-5 relative (the GPU's fused
multiply-adds and math library differ from the interpreter's in the last bits); everything else exactly. Exits
1 if any compared case differs or fails on the GPU.
"""
import json
import math
import os
import subprocess
import sys
import tempfile


def run(skc, sk, launch, where, out_dir):
    args_path = os.path.join(out_dir, "args.json")
    with open(args_path, "w") as f:
        json.dump(launch.get("args", {}), f)
    out_path = os.path.join(out_dir, f"{where}.json")
    command = [skc, "run", f"--{where}", "--kernel", launch["kernel"],
               "--grid", ",".join(str(x) for x in launch["grid"]),
               "--block", ",".join(str(x) for x in launch["block"]),
               "--args", args_path, "--out", out_path, sk]
    if launch.get("shared"):
        command[2:2] = ["--shared", str(launch["shared"])]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    result = None
    if os.path.exists(out_path):
        with open(out_path) as f:
            result = json.load(f)
        os.remove(out_path)
    return done.returncode, done.stderr, result


def close(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        if math.isnan(a) and math.isnan(b):
            return True
        return abs(a - b) <= 1e-5 * max(1.0, abs(a), abs(b))
    return a == b


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    skc = argv[0]
    case_dir = argv[1] if len(argv) > 1 else "compiler/interp/tests/ui"
    compared = skipped = bad = 0
    with tempfile.TemporaryDirectory() as out_dir:
        for name in sorted(os.listdir(case_dir)):
            if not name.endswith(".json"):
                continue
            sk = os.path.join(case_dir, name[:-5] + ".sk")
            with open(os.path.join(case_dir, name)) as f:
                launch = json.load(f)
            rc, err, cpu = run(skc, sk, launch, "interp", out_dir)
            if rc != 0 or cpu is None or "R0" in err:
                print(f"skip {name[:-5]}: the interpreter reports {err.strip().splitlines()[-1] if err.strip() else rc}")
                skipped += 1
                continue
            rc, err, gpu = run(skc, sk, launch, "gpu", out_dir)
            compared += 1
            if rc != 0 or gpu is None:
                print(f"FAIL {name[:-5]}: the GPU run failed: {err.strip()[-300:]}")
                bad += 1
            elif not close(cpu, gpu):
                print(f"FAIL {name[:-5]}: interpreter {json.dumps(cpu)[:300]} GPU {json.dumps(gpu)[:300]}")
                bad += 1
            else:
                print(f"ok   {name[:-5]}")
    print(f"{compared} compared ({compared - bad} agree), {skipped} not compared (the interpreter reports a problem)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
