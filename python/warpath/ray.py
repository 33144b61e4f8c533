"""warpath over a Ray cluster (issue 32): a render split into sample ranges, an isosurface
sweep into groups of isovalues and a ReSTIR frame sequence into frame ranges, each part a
Ray task (one GPU each where the cluster has GPUs, CPU tasks otherwise), the parts merged as
they arrive, a failed task (an exception, or a worker process that died) submitted again.

>>> import warpath.ray
>>> result = warpath.ray.render("cornell", spp=256, tasks=8, output="cornell.exr")
>>> result.image.shape, result.retries
((256, 256, 3), [])

Exactness: a pixel's samples are a function of (pixel, sample index), so films of disjoint
ranges merge into the render of their union. Parts are merged in ascending order of their
ranges (a part that arrives early waits for the ones before it), and on the CPU each task
renders its range in one pass, so the merged film equals, bit for bit, the single-process
`warpath.render_film(scene, spp=N, pass_size=chunk)` (`chunk`: the task's range length,
`result.chunk`); its image equals `warpath.render(scene, spp=N)` too, the sums grouped
differently only in round-off of the f64 squared sums.

Scenes travel to the workers by name: a built-in scene, a file path (made absolute; every
node must see it) or a dict for `warpath.scene_from_dict` (arrays inside are shipped).

`python -m warpath.ray SCENE -o image.exr --tasks N` runs a render from the shell (see
`--help`), and `python -m warpath.ray --bench` times it against the single-process render.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

import warpath

try:
    import ray
except ImportError:  # pragma: no cover - the message says what to do
    ray = None

SceneSpec = Union[str, "os.PathLike[str]", Mapping[str, Any]]

#: Set (to a folder) in the driver's environment, makes the first attempt of every task
#: end its worker process (os._exit) after rendering, before returning: the tests' way to
#: kill a task mid-way. A marker file per task in the folder remembers the first attempt.
CRASH_ONCE = "WARPATH_RAY_CRASH_ONCE"


def _need_ray():
    if ray is None:
        raise ImportError("warpath.ray needs Ray: pip install ray")
    return ray


def _scene_spec(scene: SceneSpec) -> Union[str, dict]:
    """The scene as something every worker can load: a built-in name, an absolute path, or
    a dict."""
    if isinstance(scene, warpath.Scene):
        raise TypeError(
            "warpath.ray needs a scene the workers can load themselves: a built-in name, a file "
            "path or a dict (warpath.scene_from_dict), not a loaded warpath.Scene"
        )
    if isinstance(scene, Mapping):
        return dict(scene)
    path = Path(os.fspath(scene))
    return str(path.resolve()) if path.exists() else str(path)


def _load(spec: Union[str, dict]) -> "warpath.Scene":
    return warpath.scene_from_dict(spec) if isinstance(spec, dict) else warpath.load(spec)


def split(total: int, parts: int) -> List[Tuple[int, int]]:
    """`range(total)` in consecutive ranges of `ceil(total / parts)` (the last may be shorter,
    and there are fewer than `parts` where they would be empty)."""
    if total < 1 or parts < 1:
        raise ValueError(f"cannot split {total} into {parts} parts: both must be at least 1")
    chunk = math.ceil(total / parts)
    return [(a, min(a + chunk, total)) for a in range(0, total, chunk)]


def _crash_once(kind: str, start: int) -> None:
    folder = os.environ.get(CRASH_ONCE)
    if not folder:
        return
    try:
        fd = os.open(os.path.join(folder, f"{kind}-{start}"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.close(fd)
    os._exit(1)


def _render_task(spec, samples, kw):
    film = warpath.render_film(_load(spec), samples=samples, progress=False, **kw)
    _crash_once("render", samples[0])
    return film


def _frames_task(spec, frames, frame_range, kw):
    result = warpath.render_frames(_load(spec), frames, range=frame_range, progress=False, **kw)
    _crash_once("frames", frame_range[0])
    return result


def _sweep_task(volume, isovalues, start, kw):
    result = warpath.isosurface(volume, isovalues, **kw)
    _crash_once("sweep", start)
    return result


@dataclass
class Placement:
    """How tasks are placed: `gpus` per task (0 or 1), `cpus` per task, the backend the
    tasks render with, and the Ray options that say so."""

    gpus: int
    cpus: int
    backend: str

    def options(self) -> Dict[str, Any]:
        env = {}
        if self.gpus == 0:
            # A CPU task renders with exactly the cores Ray gave it.
            env["RAYON_NUM_THREADS"] = str(self.cpus)
        if os.environ.get(CRASH_ONCE):
            env[CRASH_ONCE] = os.environ[CRASH_ONCE]
        # Retries are this module's own (`_run`), which names each failed range.
        options: Dict[str, Any] = {"num_cpus": self.cpus, "num_gpus": self.gpus, "max_retries": 0}
        if env:
            options["runtime_env"] = {"env_vars": env}
        return options


def _placement(backend: str, gpus: Optional[int], cpus: Optional[int]) -> Placement:
    if gpus is None:
        gpus = 1 if backend != "cpu" and ray.cluster_resources().get("GPU", 0) >= 1 else 0
    if gpus not in (0, 1):
        raise ValueError(f"gpus={gpus}: a task renders on one GPU (1) or the CPU (0)")
    if cpus is None:
        cpus = 1
    if gpus == 0 and backend not in ("auto", "cpu"):
        raise ValueError(f"backend '{backend}' without GPU tasks: give gpus=1 (and a cluster with GPUs)")
    if gpus == 1 and backend not in ("auto", "cuda"):
        raise ValueError(f"backend '{backend}' with GPU tasks: Ray gives each task its GPU, give 'auto' or 'cuda'")
    # A CPU task on a GPU node must not take a GPU Ray gave to another task; a GPU task
    # sees only its own GPU (CUDA_VISIBLE_DEVICES), as device 0.
    return Placement(gpus=gpus, cpus=cpus, backend="cpu" if gpus == 0 else "cuda")


def _init(address: Optional[str]) -> None:
    _need_ray()
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False)


@dataclass
class Retry:
    """A failed attempt of one part and why."""

    part: Tuple[int, int]
    attempt: int
    reason: str


def _run(
    submit: Callable[[Tuple[int, int]], Any],
    parts: Sequence[Tuple[int, int]],
    on_part: Callable[[Tuple[int, int], Any], None],
    max_retries: int,
    retries: List[Retry],
    what: str,
) -> None:
    """Submits one task per part and hands each result to `on_part` as it arrives; a task that
    failed (its exception, or its worker process ended) is submitted again, `max_retries`
    times at most, each failure recorded in `retries` and printed to stderr; past that, the
    tasks still running are cancelled and the error names the part."""
    pending = {submit(p): (p, 1) for p in parts}
    while pending:
        [ready], _ = ray.wait(list(pending), num_returns=1)
        part, attempt = pending.pop(ready)
        try:
            value = ray.get(ready)
        except ray.exceptions.RayError as e:
            # An exception in the task comes wrapped (its `cause`); a dead worker is its own.
            cause = getattr(e, "cause", None) or e
            lines = str(cause).strip().splitlines()
            reason = f"{type(cause).__name__}: {lines[0] if lines else ''}"
            retries.append(Retry(part, attempt, reason))
            if attempt > max_retries:
                for other in pending:  # the result is lost anyway: free their workers
                    ray.cancel(other)
                raise warpath.Error(
                    f"warpath.ray: {what} {part[0]}..{part[1]} failed {attempt} times, the last: {reason}"
                ) from e
            print(f"warpath.ray: {what} {part[0]}..{part[1]} failed ({reason}); attempt {attempt + 1}",
                  file=sys.stderr)
            pending[submit(part)] = (part, attempt + 1)
            continue
        on_part(part, value)


@dataclass
class RenderResult:
    """A render through Ray: the merged `film`, the `parts` (sample ranges, one a task),
    `chunk` (their length), the `retries` (failed attempts), `seconds` from the first
    submission to the merged film."""

    film: "warpath.Film"
    parts: List[Tuple[int, int]]
    chunk: int
    retries: List[Retry] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def image(self) -> np.ndarray:
        return self.film.image()


def render(
    scene: SceneSpec,
    spp: Optional[int] = None,
    tasks: int = 4,
    resolution=None,
    backend: str = "auto",
    seed: Optional[int] = None,
    max_depth: Optional[int] = None,
    strategy: Optional[str] = None,
    gpus: Optional[int] = None,
    cpus: Optional[int] = None,
    max_retries: int = 3,
    output: Optional[Union[str, "os.PathLike[str]"]] = None,
    film: Optional[Union[str, "os.PathLike[str]"]] = None,
    address: Optional[str] = None,
    progress: bool = True,
) -> RenderResult:
    """Renders `scene` (a built-in name, a path, or a dict) with the path tracer in `tasks`
    Ray tasks of consecutive sample ranges and merges their films in order as they arrive.
    `spp` defaults to the scene's. `gpus`: 1 (a GPU a task), 0 (CPU tasks) or None (1 when
    the cluster has GPUs); `cpus`: cores a task (1). A failed task is submitted again, up to
    `max_retries` times. `output`: also write the image (.exr/.png); `film`: the merged
    .wfilm. Connects to `address` (or $RAY_ADDRESS) or starts a local Ray when Ray is not
    initialized yet."""
    _init(address)
    spec = _scene_spec(scene)
    if spp is None:
        spp = _load(spec).spp
    parts = split(spp, tasks)
    chunk = parts[0][1] - parts[0][0]
    place = _placement(backend, gpus, cpus)
    task = ray.remote(_render_task).options(**place.options())
    spec_ref = ray.put(spec)
    kw = dict(resolution=resolution, backend=place.backend, seed=seed, max_depth=max_depth, strategy=strategy)

    def submit(part):
        # On the CPU one pass a task: the merged film is then the single-process render's
        # with pass_size=chunk, bit for bit (module docs).
        pass_size = part[1] - part[0] if place.gpus == 0 else None
        return task.remote(spec_ref, part, dict(kw, pass_size=pass_size))

    arrived: Dict[int, Any] = {}
    merged: List[Any] = [None]
    start = time.perf_counter()

    def on_part(part, part_film):
        arrived[part[0]] = part_film
        # Fold in ascending order: the next range's film joins once every one before it has.
        next_start = merged[0].samples[1] if merged[0] is not None else 0
        while next_start in arrived:
            f = arrived.pop(next_start)
            merged[0] = f if merged[0] is None else warpath.merge([merged[0], f])
            next_start = merged[0].samples[1]
        if progress:
            done = merged[0].samples[1] if merged[0] is not None else 0
            print(f"\rwarpath.ray: merged {done}/{spp} samples per pixel", end="", file=sys.stderr, flush=True)

    retries: List[Retry] = []
    _run(submit, parts, on_part, max_retries, retries, "samples")
    if progress:
        print(file=sys.stderr)
    result = RenderResult(merged[0], parts, chunk, retries, time.perf_counter() - start)
    if output is not None:
        warpath.write(output, result.image)
    if film is not None:
        result.film.write(film)
    return result


def frames(
    scene: SceneSpec,
    frames: int,
    orbit: float = 0.0,
    tasks: int = 4,
    resolution=None,
    backend: str = "auto",
    seed: Optional[int] = None,
    max_depth: Optional[int] = None,
    gpus: Optional[int] = None,
    cpus: Optional[int] = None,
    max_retries: int = 3,
    address: Optional[str] = None,
) -> Dict[str, Any]:
    """`warpath.render_frames` of `frames` ReSTIR DI frames in `tasks` Ray tasks of
    consecutive frame ranges; returns the same dict (`images` `(frames, H, W, 3)`, `ms`).

    Each frame reuses the reservoirs of the one before (temporal reuse), so the task of
    frames a..b renders frames 0..a too, unreturned: its frames then equal the local
    sequence's, and the work grows to about (tasks + 1) / 2 times the sequence's, the last
    task rendering all of it. Ray spreads long sequences that must be exact, not faster."""
    _init(address)
    spec = _scene_spec(scene)
    parts = split(frames, tasks)
    place = _placement(backend, gpus, cpus)
    task = ray.remote(_frames_task).options(**place.options())
    spec_ref = ray.put(spec)
    kw = dict(orbit=orbit, resolution=resolution, backend=place.backend, seed=seed, max_depth=max_depth)
    results: Dict[Tuple[int, int], Any] = {}
    retries: List[Retry] = []
    _run(lambda part: task.remote(spec_ref, frames, part, kw), parts, results.__setitem__, max_retries, retries,
         "frames")
    ordered = [results[p] for p in parts]
    return {
        "images": np.concatenate([r["images"] for r in ordered]),
        "ms": np.concatenate([r["ms"] for r in ordered]),
        "retries": retries,
    }


def sweep(
    volume,
    isovalues: Sequence[float],
    views=None,
    tasks: int = 4,
    resolution: Optional[Tuple[int, int]] = None,
    backend: str = "auto",
    brick: int = 16,
    key_light=None,
    shadows: bool = False,
    gpus: Optional[int] = None,
    cpus: Optional[int] = None,
    max_retries: int = 3,
    address: Optional[str] = None,
) -> Dict[str, Any]:
    """`warpath.isosurface` over `isovalues` in `tasks` Ray tasks of consecutive groups of
    isovalues (each builds the volume's brick tree once and sweeps its group); returns the
    same dict (`images` `(len(isovalues), len(views), H, W, 3)`, the times per frame) and
    `retries`, the failed attempts.
    `volume`: an array (shipped once to the object store), a volume file every node sees, or
    a procedural field name."""
    _init(address)
    values = [float(v) for v in np.atleast_1d(np.asarray(isovalues, dtype=np.float64))]
    if not isinstance(volume, (str, os.PathLike)):
        volume = ray.put(np.asarray(volume))
    elif Path(os.fspath(volume)).exists():
        volume = str(Path(os.fspath(volume)).resolve())
    parts = split(len(values), tasks)
    place = _placement(backend, gpus, cpus)
    task = ray.remote(_sweep_task).options(**place.options())
    kw = dict(views=views, resolution=resolution, backend=place.backend, brick=brick, key_light=key_light,
              shadows=shadows)
    results: Dict[Tuple[int, int], Any] = {}
    retries: List[Retry] = []
    _run(lambda p: task.remote(volume, values[p[0]:p[1]], p[0], kw), parts, results.__setitem__, max_retries,
         retries, "isovalues")
    ordered = [results[p] for p in parts]
    out = {k: np.concatenate([r[k] for r in ordered]) for k in ("images", "update_ms", "render_ms", "frame_ms")}
    out["isovalues"] = [v for r in ordered for v in r["isovalues"]]
    out["views"] = ordered[0]["views"]
    out["backend"] = ordered[0]["backend"]
    out["retries"] = retries
    return out


def _cpu_seconds(tree: bool) -> Optional[float]:
    """CPU seconds (user + system) this process has used — with `tree`, plus every process
    below it (a local Ray's GCS, raylet, agents and workers) — read from /proc; None
    elsewhere. Processes that ended are not counted."""
    try:
        tick = os.sysconf("SC_CLK_TCK")
        stats = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                # After "pid (comm)": state ppid ... utime (14th field) stime (15th).
                stats[int(entry)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    except (OSError, ValueError, AttributeError):
        return None
    wanted, frontier = {os.getpid()}, [os.getpid()]
    while tree and frontier:
        parent = frontier.pop()
        for pid, (ppid, _) in stats.items():
            if ppid == parent and pid not in wanted:
                wanted.add(pid)
                frontier.append(pid)
    return sum(stats[pid][1] for pid in wanted if pid in stats) / tick


def _bench(args) -> int:
    """Times the single-process render against the same render through Ray on this machine
    (the CPU backend), alternating the two `--repeat` times (so a change in the machine's load
    hits both alike), checks that the films are equal, and prints the numbers and medians."""
    import platform
    import statistics

    spec = _scene_spec(args.scene or "cornell")
    scene = _load(spec)
    spp = args.spp or scene.spp
    parts = split(spp, args.tasks)
    chunk = parts[0][1] - parts[0][0]
    cpus = args.cpus or 1
    kw = dict(resolution=args.resolution, seed=args.seed)
    cores = os.cpu_count() or 1
    load = lambda: " ".join(f"{v:.1f}" for v in os.getloadavg())  # noqa: E731
    print(f"bench: scene {args.scene or 'cornell'}, {spp} spp, resolution {args.resolution or scene.resolution}, "
          f"{len(parts)} tasks of {chunk} samples, {cpus} core(s) a task, {cores} cores here "
          f"({platform.machine()}), load average {load()}", file=sys.stderr)
    t = time.perf_counter()
    _init(args.address)
    init = time.perf_counter() - t
    print(f"ray.init: {init:.2f} s", file=sys.stderr)
    # Wall seconds, and CPU seconds: the single process's own; Ray's whole local cluster's
    # (the driver, GCS, raylet, agents, workers), which a busy machine does not inflate.
    singles, rays, single_cpu, ray_cpu = [], [], [], []
    for k in range(args.repeat):
        c, t = _cpu_seconds(False), time.perf_counter()
        local = warpath.render_film(_load(spec), spp=spp, pass_size=chunk, progress=False, backend="cpu", **kw)
        singles.append(time.perf_counter() - t)
        single_cpu.append(_cpu_seconds(False) - c if c is not None else math.nan)
        c, t = _cpu_seconds(True), time.perf_counter()
        result = render(spec, spp=spp, tasks=args.tasks, gpus=0, cpus=cpus, progress=False, **kw)
        rays.append(time.perf_counter() - t)
        ray_cpu.append(_cpu_seconds(True) - c if c is not None else math.nan)
        equal = (np.array_equal(result.film.sum, local.sum) and np.array_equal(result.film.sum_sq, local.sum_sq)
                 and np.array_equal(result.film.counts, local.counts))
        print(f"run {k + 1}: single process {singles[-1]:.2f} s ({single_cpu[-1]:.2f} CPU s), "
              f"Ray {rays[-1]:.2f} s ({ray_cpu[-1]:.2f} CPU s): {100 * (rays[-1] / singles[-1] - 1):+.1f}% wall, "
              f"{100 * (ray_cpu[-1] / single_cpu[-1] - 1):+.1f}% CPU; film {'equal bit for bit' if equal else 'DIFFERENT'}"
              f"; load average {load()}", file=sys.stderr)
        if not equal:
            return 1
    med = statistics.median
    print("| scene | tasks | one process: wall, CPU | Ray: wall, CPU | Ray's overhead: wall, CPU | ray.init | runs |")
    print(f"| {args.scene or 'cornell'} {args.resolution or 'x'.join(map(str, scene.resolution))}, {spp} spp "
          f"| {len(parts)} x {cpus} core(s) | {med(singles):.2f} s, {med(single_cpu):.2f} s "
          f"| {med(rays):.2f} s, {med(ray_cpu):.2f} s "
          f"| {100 * (med(rays) / med(singles) - 1):+.1f}%, {100 * (med(ray_cpu) / med(single_cpu) - 1):+.1f}% "
          f"| {init:.2f} s | {args.repeat} |")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m warpath.ray",
        description="Render a scene in Ray tasks of sample ranges (a GPU a task where the cluster has GPUs) "
        "and merge them into the image of one render; --frames renders a ReSTIR DI sequence in frame ranges.",
    )
    parser.add_argument("scene", nargs="?", help="a built-in scene name or a scene file every node can read")
    parser.add_argument("-o", "--output", help="the image (.exr or .png); with --frames OUTPUT-0000.EXT ...")
    parser.add_argument("--tasks", type=int, default=4, help="Ray tasks (sample or frame ranges) [4]")
    parser.add_argument("--spp", type=int, help="samples per pixel [the scene's]")
    parser.add_argument("--resolution", help="WIDTHxHEIGHT [the scene's]")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--max-depth", type=int)
    parser.add_argument("--backend", default="auto", help="auto, cpu, cuda [auto: a GPU a task if there are GPUs]")
    parser.add_argument("--gpus", type=int, choices=(0, 1), help="GPUs a task [1 when the cluster has GPUs]")
    parser.add_argument("--cpus", type=int, help="CPU cores a task [1]")
    parser.add_argument("--max-retries", type=int, default=3, help="submissions again of a failed task [3]")
    parser.add_argument("--film", help="also write the merged film (.wfilm, for `warpath merge`)")
    parser.add_argument("--frames", type=int, help="render this many ReSTIR DI frames, one image each")
    parser.add_argument("--orbit", type=float, default=0.0, help="--frames: degrees the camera turns in all")
    parser.add_argument("--address", help="a Ray cluster's address [$RAY_ADDRESS, else a local Ray]")
    parser.add_argument("--bench", action="store_true",
                        help="time the single-process CPU render against Ray's on this machine and check equality")
    parser.add_argument("--repeat", type=int, default=3, help="--bench: pairs of renders (one process, Ray) [3]")
    args = parser.parse_args(argv)
    _need_ray()
    if args.bench:
        return _bench(args)
    if not args.scene:
        parser.error("give a SCENE (a built-in name or a file)")
    if args.frames:
        out = frames(args.scene, args.frames, orbit=args.orbit, tasks=args.tasks, resolution=args.resolution,
                     backend=args.backend, seed=args.seed, max_depth=args.max_depth, gpus=args.gpus, cpus=args.cpus,
                     max_retries=args.max_retries, address=args.address)
        stem, ext = os.path.splitext(args.output or "warpath.exr")
        for k, image in enumerate(out["images"]):
            warpath.write(f"{stem}-{k:04d}{ext}", image)
        print(f"wrote {len(out['images'])} frames {stem}-0000{ext} ...", file=sys.stderr)
        return 0
    result = render(args.scene, spp=args.spp, tasks=args.tasks, resolution=args.resolution, backend=args.backend,
                    seed=args.seed, max_depth=args.max_depth, gpus=args.gpus, cpus=args.cpus,
                    max_retries=args.max_retries, output=args.output or "warpath.exr", film=args.film,
                    address=args.address)
    print(f"merged {len(result.parts)} parts ({result.film.samples[1]} spp, {len(result.retries)} failed attempts "
          f"submitted again) in {result.seconds:.2f} s; wrote {args.output or 'warpath.exr'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    # Run as `python -m warpath.ray`: the tasks must name this module's functions by their
    # importable name (warpath.ray), not __main__.
    from warpath.ray import main as _main

    sys.exit(_main())
