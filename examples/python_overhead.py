"""The overhead of a render from Python over the same render by the CLI (issue 31): each
runs as a fresh process (load the scene, prepare, render, write the EXR), alternately,
`--repeat` times after one warm-up each (which fills the kernel cache); prints the medians
and writes them as JSON.

    python examples/python_overhead.py --cli target/release/warpath --backend cuda \
        --resolution 1024x1024 --spp 64 --json overhead.json
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON_RENDER = """
import sys, time, warpath
start = time.perf_counter()
scene = warpath.load(sys.argv[1])
w, h = map(int, sys.argv[3].split("x"))
r = warpath.render(scene, spp=int(sys.argv[4]), resolution=(w, h), backend=sys.argv[2], seed=1, counts=True,
                   progress=False)
warpath.write(sys.argv[5], r["image"])
print(r["seconds"], time.perf_counter() - start)
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cli", default="target/release/warpath")
    p.add_argument("--scene", default="cornell")
    p.add_argument("--backend", default="cuda")
    p.add_argument("--resolution", default="1024x1024")
    p.add_argument("--spp", type=int, default=64)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--json")
    a = p.parse_args()
    rows = {"cli_wall_s": [], "python_wall_s": [], "python_render_s": [], "python_in_process_s": []}
    with tempfile.TemporaryDirectory() as tmp:
        cli_out, py_out = Path(tmp) / "cli.exr", Path(tmp) / "py.exr"
        cli = [a.cli, "render", a.scene, "--backend", a.backend, "--spp", str(a.spp), "--resolution", a.resolution,
               "--seed", "1", "--quiet", "-o", str(cli_out)]
        py = [sys.executable, "-c", PYTHON_RENDER, a.scene, a.backend, a.resolution, str(a.spp), str(py_out)]
        for k in range(a.repeat + 1):
            start = time.perf_counter()
            subprocess.run(cli, check=True, capture_output=True)
            cli_s = time.perf_counter() - start
            start = time.perf_counter()
            done = subprocess.run(py, check=True, capture_output=True, text=True)
            py_s = time.perf_counter() - start
            if k == 0:
                continue  # warm-up: kernel cache, page cache
            render_s, in_process_s = map(float, done.stdout.split())
            rows["cli_wall_s"].append(cli_s)
            rows["python_wall_s"].append(py_s)
            rows["python_render_s"].append(render_s)
            rows["python_in_process_s"].append(in_process_s)
        import warpath  # noqa: E402  (after the subprocesses: the comparison of the two images)

        same = bool((warpath.read(cli_out) == warpath.read(py_out)).all())
    summary = {key: statistics.median(v) for key, v in rows.items()}
    summary.update(runs=rows, identical_images=same, scene=a.scene, backend=a.backend, resolution=a.resolution,
                   spp=a.spp, devices=[d["name"] for d in warpath.devices()])
    print(f"{a.scene} {a.resolution} at {a.spp} spp on {a.backend}, median of {a.repeat}: "
          f"CLI {summary['cli_wall_s']:.3f} s, Python {summary['python_wall_s']:.3f} s "
          f"(render loop {summary['python_render_s']:.3f} s); images identical: {same}")
    if a.json:
        Path(a.json).write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
