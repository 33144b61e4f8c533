"""warpath.ray on a local Ray cluster of 2 CPUs (issue 32): a render in 4 tasks, a task whose
worker process dies and is submitted again, an isosurface sweep and a ReSTIR frame sequence
through Ray, each equal to the single-process result. Skipped where Ray is not installed
(CI installs it: .ci/run)."""

import os
import subprocess
import sys

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install ray): warpath.ray is not tested")

import warpath  # noqa: E402
import warpath.ray as wray  # noqa: E402

KW = dict(resolution=(24, 18), seed=6)


@pytest.fixture(scope="module", autouse=True)
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def local_film(spp, chunk):
    return warpath.render_film(warpath.load("cornell"), spp=spp, pass_size=chunk, backend="cpu", progress=False, **KW)


def test_split():
    assert wray.split(16, 4) == [(0, 4), (4, 8), (8, 12), (12, 16)]
    assert wray.split(10, 4) == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert wray.split(3, 8) == [(0, 1), (1, 2), (2, 3)]
    with pytest.raises(ValueError):
        wray.split(0, 2)


def test_four_tasks_equal_the_single_process_render():
    result = wray.render("cornell", spp=10, tasks=4, progress=False, **KW)
    assert result.parts == [(0, 3), (3, 6), (6, 9), (9, 10)] and result.chunk == 3
    assert result.retries == []
    local = local_film(10, 3)
    assert result.film.samples == (0, 10) and result.film.fingerprint == local.fingerprint
    assert np.array_equal(result.film.sum, local.sum)
    assert np.array_equal(result.film.sum_sq, local.sum_sq)
    assert np.array_equal(result.film.counts, local.counts) and (result.film.counts == 10).all()
    image = warpath.render(warpath.load("cornell"), spp=10, backend="cpu", progress=False, **KW)
    assert result.image.dtype == np.float32
    assert np.array_equal(result.image, image)


def test_a_task_whose_worker_dies_is_submitted_again(tmp_path, monkeypatch):
    markers = tmp_path / "markers"
    markers.mkdir()
    # The first attempt of every task ends its worker process (os._exit) after rendering.
    monkeypatch.setenv(wray.CRASH_ONCE, str(markers))
    result = wray.render("cornell", spp=8, tasks=4, progress=False, output=tmp_path / "image.exr",
                         film=tmp_path / "image.wfilm", **KW)
    assert sorted(os.listdir(markers)) == [f"render-{a}" for a in (0, 2, 4, 6)]
    assert sorted(r.part for r in result.retries) == result.parts
    assert all(r.attempt == 1 and "WorkerCrashedError" in r.reason for r in result.retries)
    local = local_film(8, 2)
    assert np.array_equal(result.film.sum, local.sum) and np.array_equal(result.film.sum_sq, local.sum_sq)
    assert np.array_equal(warpath.read(tmp_path / "image.exr"), local.image())
    assert warpath.Film.read(tmp_path / "image.wfilm").to_bytes() == result.film.to_bytes()


def test_a_task_that_always_fails_is_an_error_naming_its_range(tmp_path):
    # Either part may be the first to fail twice.
    with pytest.raises(warpath.Error, match=r"samples (0\.\.2|2\.\.4) failed 2 times.*no-such-scene"):
        wray.render(str(tmp_path / "no-such-scene.toml"), spp=4, tasks=2, max_retries=1, progress=False)


def test_isosurface_sweep_equals_the_local_sweep(tmp_path, monkeypatch):
    x, y, z = np.meshgrid(*[np.linspace(-1, 1, 20)] * 3, indexing="ij")
    volume = (x**2 + 0.7 * y**2 + 1.3 * z**2).astype(np.float32)
    isovalues = [0.2, 0.35, 0.5, 0.65, 0.8]
    kw = dict(views=[(30, 20), (120, 10)], resolution=(20, 16), backend="cpu")
    local = warpath.isosurface(volume, isovalues, **kw)
    markers = tmp_path / "markers"
    markers.mkdir()
    monkeypatch.setenv(wray.CRASH_ONCE, str(markers))
    swept = wray.sweep(volume, isovalues, tasks=3, **kw)
    assert swept["images"].shape == (5, 2, 16, 20, 3)
    assert np.array_equal(swept["images"], local["images"])
    assert swept["isovalues"] == local["isovalues"] and swept["frame_ms"].shape == (5, 2)
    assert sorted(r.part for r in swept["retries"]) == [(0, 2), (2, 4), (4, 5)]


def test_frame_sequence_equals_the_local_sequence():
    kw = dict(orbit=15.0, resolution=(16, 12), seed=3, backend="cpu")
    local = warpath.render_frames(warpath.load("cornell"), 6, progress=False, **kw)
    remote = wray.frames("cornell", 6, tasks=3, **kw)
    assert remote["images"].shape == (6, 12, 16, 3) and len(remote["ms"]) == 6
    assert np.array_equal(remote["images"], local["images"])
    assert remote["retries"] == []


def test_a_loaded_scene_and_contradictory_placements_are_refused():
    with pytest.raises(TypeError, match="built-in name, a file path or a dict"):
        wray.render(warpath.load("cornell"), spp=2)
    with pytest.raises(ValueError, match="without GPU tasks"):
        wray.render("cornell", spp=2, backend="cuda", gpus=0)
    with pytest.raises(ValueError, match="Ray gives each task its GPU"):
        wray.render("cornell", spp=2, backend="cuda:1", gpus=1)
    with pytest.raises(ValueError, match="one GPU"):
        wray.render("cornell", spp=2, gpus=2)


def test_command_line_writes_the_image(tmp_path):
    out = tmp_path / "cli.exr"
    # A second driver process, connected to this module's cluster by its address.
    address = ray.get_runtime_context().gcs_address
    done = subprocess.run(
        [sys.executable, "-m", "warpath.ray", "cornell", "-o", str(out), "--tasks", "3", "--spp", "6",
         "--resolution", "24x18", "--seed", "6", "--address", address],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "merged 3 parts" in done.stderr
    assert np.array_equal(warpath.read(out), local_film(6, 2).image())
