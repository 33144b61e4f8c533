"""Every kind of bad argument raises the Python exception that fits, with the Rust error's
message; nothing crashes the interpreter."""

import numpy as np
import pytest

import warpath
from conftest import blob, medium_scene

CORNELL = warpath.load("cornell")


def test_missing_scenes_and_files():
    with pytest.raises(FileNotFoundError, match="did you mean 'cornell'"):
        warpath.load("cornel")
    with pytest.raises(FileNotFoundError, match="no-such-scene.toml"):
        warpath.load("no-such-scene.toml")
    with pytest.raises(FileNotFoundError):
        warpath.read("no-such-image.exr")


def test_bad_scene_text_names_the_line():
    with pytest.raises(ValueError, match=r"broken\.toml:3"):
        warpath.loads("[render]\nwidth = 8\nheight = -4\n", name="broken")
    with pytest.raises(ValueError, match="did you mean"):
        warpath.loads("[render]\nwidht = 8\n")
    with pytest.raises(ValueError):
        warpath.scene_from_dict({"render": {"width": object()}})


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(spp=0), "out of range"),
        (dict(spp=-3), "out of range"),
        (dict(resolution=(0, 4)), "out of range"),
        (dict(resolution="12 by 4"), "WIDTHxHEIGHT"),
        (dict(resolution=(4,)), "WIDTHxHEIGHT"),
        (dict(max_depth=10**6), "max depth"),
        (dict(backend="gpu"), "unknown backend"),
        (dict(integrator="bdpt"), "unknown integrator"),
        (dict(strategy="fastest"), "unknown strategy"),
        (dict(frames=4), "--frames"),
        (dict(integrator="restir-di", spp=4), "frames"),
        (dict(pass_size=0), "out of range"),
        (dict(seed=-1), "seed"),
        (dict(progress="yes"), "progress"),
    ],
)
def test_bad_render_settings_are_value_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        warpath.render(CORNELL, **{"backend": "cpu", "progress": False, **kwargs})


def test_cuda_without_a_device_is_a_warpath_error():
    if warpath.devices():
        pytest.skip("this machine has a GPU")
    with pytest.raises(warpath.Error):
        warpath.render(CORNELL, spp=1, resolution=(4, 4), backend="cuda", progress=False)
    # auto falls back to the CPU.
    assert warpath.render(CORNELL, spp=1, resolution=(4, 4), backend="auto", progress=False).shape == (4, 4, 3)


def test_bad_images_to_write(tmp_path):
    with pytest.raises(ValueError, match="unsupported output format"):
        warpath.write(tmp_path / "x.jpg", np.zeros((2, 2, 3)))
    with pytest.raises(ValueError, match="not \\(height, width, 3\\)"):
        warpath.write(tmp_path / "x.exr", np.zeros((2, 2)))
    with pytest.raises(ValueError, match="empty"):
        warpath.write(tmp_path / "x.exr", np.zeros((0, 2, 3)))
    with pytest.raises(ValueError, match="not a real number type"):
        warpath.write(tmp_path / "x.exr", np.array([["a", "b", "c"]]))
    with pytest.raises(warpath.Error):
        # A folder where the file should go.
        (tmp_path / "folder.exr").mkdir()
        warpath.write(tmp_path / "folder.exr", np.zeros((2, 2, 3)))


@pytest.mark.parametrize(
    "density, message",
    [
        (np.full((4, 4, 4), np.nan), "NaN density at \\[0, 0, 0\\]"),
        (np.pad(-np.ones((1, 1, 1)), ((2, 1), (0, 3), (1, 2))), "negative density -1 at \\[2, 0, 1\\]"),
        (np.ones((4, 4)), "wrong rank"),
        (np.ones((4, 4, 4, 2)), "wrong rank"),
        (np.ones((4, 0, 4)), "empty"),
        (np.ones((3, 3, 3)) * 1j, "not a real number type"),
        (np.full((2, 2, 2), 1e39), "infinite density"),
    ],
)
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_bad_density_arrays(density, message):
    with pytest.raises(ValueError, match=message):
        warpath.scene_from_dict(medium_scene(density))


def test_bad_albedo_arrays_and_medium_keys():
    d = blob()
    with pytest.raises(ValueError, match="albedo 1.5 outside \\[0, 1\\]"):
        warpath.scene_from_dict(medium_scene(d, albedo=np.full(d.shape, 1.5)))
    with pytest.raises(ValueError, match="wrong rank"):
        warpath.scene_from_dict(medium_scene(d, albedo=np.ones(d.shape + (2,))))
    with pytest.raises(ValueError, match="transfer function gives the albedo"):
        warpath.scene_from_dict(medium_scene(d, albedo=np.ones(d.shape), transfer="gray-red-blue"))
    with pytest.raises(ValueError, match="unknown transfer preset"):
        warpath.scene_from_dict(medium_scene(d, transfer="rainbow"))
    with pytest.raises(ValueError, match="spacing"):
        warpath.scene_from_dict(medium_scene(d, spacing=[1, 0, 1], physical_proportions=True))
    with pytest.raises(ValueError, match="no medium 'smoke'"):
        warpath.scene_from_dict(medium_scene(d)).with_medium("smoke", d)


def test_bad_isosurface_arguments():
    v = blob()
    with pytest.raises(ValueError, match="wrong rank"):
        warpath.isosurface(np.ones((4, 4)), 0.5, backend="cpu")
    with pytest.raises(ValueError, match="NaN"):
        warpath.isosurface(np.full((4, 4, 4), np.nan), 0.5, backend="cpu")
    with pytest.raises(ValueError, match="not a finite number"):
        warpath.isosurface(v, [1.0, float("nan")], backend="cpu", resolution=(8, 8))
    with pytest.raises(ValueError, match="at least one view"):
        warpath.isosurface(v, 1.0, views=0, backend="cpu")
    with pytest.raises(ValueError, match="brick"):
        warpath.isosurface(v, 1.0, brick=0, backend="cpu")
    with pytest.raises(ValueError, match="out of range"):
        warpath.isosurface(v, 1.0, resolution=(0, 8), backend="cpu")
    with pytest.raises(FileNotFoundError):
        warpath.isosurface("no-such-volume.nii", 1.0, backend="cpu")
    with pytest.raises(ValueError, match="unknown backend"):
        warpath.Isosurface(v, backend="vulkan")
