"""warpath.render and friends on the CPU: the same image as the command line, bit for bit."""

import numpy as np
import pytest

import warpath
from conftest import REPO


def test_render_equals_the_cli_exr_bit_for_bit(cli, tmp_path):
    out = tmp_path / "cli.exr"
    cli("render", "cornell", "--backend", "cpu", "--spp", 4, "--resolution", "32x24", "--seed", 7, "-o", out)
    expected = warpath.read(out)
    image = warpath.render(warpath.load("cornell"), spp=4, resolution=(32, 24), seed=7, backend="cpu", progress=False)
    assert image.dtype == np.float32 and image.shape == (24, 32, 3)
    assert np.array_equal(image, expected)
    assert image.tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    "scene",
    [
        "scenes/media.toml",  # media: the volumetric path tracer
        "crates/warpath-testkit/scenes/isosurface-cloud.toml",  # an isosurface shape
        "crates/warpath-testkit/scenes/every-material-type.toml",
    ],
)
def test_scene_files_render_as_the_cli_renders_them(cli, tmp_path, scene):
    path = REPO / scene
    out = tmp_path / "cli.exr"
    cli("render", path, "--backend", "cpu", "--spp", 2, "--resolution", "32x20", "--seed", 3, "-o", out)
    image = warpath.render(warpath.load(path), spp=2, resolution=(32, 20), seed=3, backend="cpu", progress=False)
    assert np.array_equal(image, warpath.read(out))


def test_restir_frames_equal_the_cli(cli, tmp_path):
    out = tmp_path / "restir.exr"
    cli("render", "cornell", "--backend", "cpu", "--integrator", "restir-di", "--frames", 3, "--resolution", "24x16",
        "--seed", 2, "-o", out)
    image = warpath.render(warpath.load("cornell"), integrator="restir-di", frames=3, resolution="24x16", seed=2,
                           backend="cpu", progress=False)
    assert np.array_equal(image, warpath.read(out))


def test_png_written_as_the_cli_writes_it(cli, tmp_path):
    out = tmp_path / "cli.png"
    cli("render", "cornell", "--backend", "cpu", "--spp", 2, "--resolution", "16x12", "--seed", 1, "-o", out)
    image = warpath.render(warpath.load("cornell"), spp=2, resolution=(16, 12), seed=1, backend="cpu", progress=False)
    mine = tmp_path / "mine.png"
    warpath.write(mine, image)
    assert mine.read_bytes() == out.read_bytes()


def test_variance_and_counts():
    scene = warpath.load("cornell")
    kw = dict(spp=5, resolution=(16, 8), seed=3, backend="cpu", progress=False)
    result = warpath.render(scene, variance=True, counts=True, **kw)
    assert set(result) >= {"image", "variance", "counts", "done", "seconds", "prepare_seconds", "rays", "backend"}
    assert np.array_equal(result["image"], warpath.render(scene, **kw))
    assert result["counts"].shape == (8, 16) and (result["counts"] == 5).all()
    assert result["variance"].shape == (8, 16, 3) and (result["variance"] >= 0).all()
    assert result["done"] == 5 and result["backend"] == "cpu" and result["rays"] > 0
    only_counts = warpath.render(scene, counts=True, **kw)
    assert "variance" not in only_counts


def test_progress_callable_sees_every_pass():
    seen = []
    warpath.render(warpath.load("cornell"), spp=4, resolution=(8, 8), backend="cpu", pass_size=1,
                   progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_an_exception_in_the_progress_callable_stops_the_render():
    def stop(done, total):
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        warpath.render(warpath.load("cornell"), spp=10_000, resolution=(8, 8), backend="cpu", progress=stop)


def test_frame_sequence_of_an_orbiting_camera():
    scene = warpath.load("cornell")
    out = warpath.render_frames(scene, 3, orbit=30.0, resolution=(12, 8), backend="cpu", seed=4, progress=False)
    assert out["images"].shape == (3, 8, 12, 3) and out["images"].dtype == np.float32
    assert out["ms"].shape == (3,) and (out["ms"] > 0).all()
    # The first frame is the static camera's first frame.
    first = warpath.render(scene, integrator="restir-di", frames=1, resolution=(12, 8), seed=4, backend="cpu",
                           progress=False)
    assert np.array_equal(out["images"][0], first)
    assert not np.array_equal(out["images"][0], out["images"][2])


def test_frame_sequence_equals_the_clis_sequence(cli, tmp_path):
    out = tmp_path / "seq.exr"
    cli("render", "cornell", "--backend", "cpu", "--integrator", "restir-di", "--frames", 3, "--sequence", "--orbit", 45,
        "--resolution", "16x12", "--seed", 6, "-o", out)
    frames = warpath.render_frames(warpath.load("cornell"), 3, orbit=45, resolution=(16, 12), seed=6, backend="cpu",
                                   progress=False)
    for k in range(3):
        assert np.array_equal(frames["images"][k], warpath.read(tmp_path / f"seq-{k:04}.exr")), k


def test_scene_object():
    scene = warpath.load("cornell")
    assert scene.name == "cornell" and scene.triangles > 0
    assert "cornell" in repr(scene) and str(scene.triangles) in repr(scene) and "256x256" in repr(scene)
    assert scene.resolution == (256, 256) and scene.estimator == "path tracer"
    text = """
[render]
width = 8
height = 4
spp = 1
[camera]
look_at = { origin = [0, 0, 3], target = [0, 0, 0] }
[[material]]
name = "light"
type = "black"
emission = [1, 1, 1]
[[shape]]
type = "rectangle"
material = "light"
"""
    small = warpath.loads(text, name="tiny")
    assert small.name == "tiny" and small.triangles == 2 and small.resolution == (8, 4)
    image = warpath.render(small, backend="cpu", progress=False)
    assert image.shape == (4, 8, 3) and image.max() > 0


def test_write_and_read_round_trip(tmp_path):
    image = np.random.default_rng(0).random((5, 7, 3)).astype(np.float32) * 4
    warpath.write(tmp_path / "a.exr", image)
    assert np.array_equal(warpath.read(tmp_path / "a.exr"), image)
    warpath.write(tmp_path / "deeper" / "b.png", image.astype(np.float64), exposure=-1)
    png = warpath.read(tmp_path / "deeper" / "b.png")
    assert png.shape == (5, 7, 3) and png.max() <= 1.0


def test_version_devices_and_kernel_cache(monkeypatch, tmp_path):
    assert warpath.__version__.count(".") == 2
    devices = warpath.devices()
    assert isinstance(devices, list)
    for d in devices:
        assert {"ordinal", "name", "compute_capability", "memory_bytes"} <= set(d)
    monkeypatch.setenv("WARPATH_KERNEL_CACHE", str(tmp_path))
    assert warpath.kernel_cache_path() == str(tmp_path)
    monkeypatch.setenv("WARPATH_KERNEL_CACHE", "off")
    assert warpath.kernel_cache_path() is None
    monkeypatch.delenv("WARPATH_KERNEL_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert warpath.kernel_cache_path() == str(tmp_path / "warpath" / "kernels")
