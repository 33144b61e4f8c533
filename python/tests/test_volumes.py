"""Media and isosurfaces from NumPy arrays: the same images as the same grids in files."""

import numpy as np

import warpath
from conftest import blob, medium_scene, write_vol

KW = dict(backend="cpu", progress=False)


def test_a_density_array_renders_as_the_same_grid_in_a_vol_file(tmp_path):
    density = blob()
    write_vol(tmp_path / "fog.vol", density)
    from_file = warpath.render(warpath.scene_from_dict(medium_scene("fog.vol"), base_dir=tmp_path), **KW)
    from_array = warpath.render(warpath.scene_from_dict(medium_scene(density)), **KW)
    assert from_array.max() > 0
    assert np.array_equal(from_array, from_file)


def test_any_dtype_and_memory_order_give_the_same_grid():
    density = (blob() * 10).round()
    reference = warpath.render(warpath.scene_from_dict(medium_scene(density.astype(np.float32))), **KW)
    for variant in [
        np.asfortranarray(density),
        density.astype(np.uint8),
        density.astype(np.int64),
        density.astype(np.float64),
        density[::-1][::-1],  # a strided view
    ]:
        image = warpath.render(warpath.scene_from_dict(medium_scene(variant)), **KW)
        assert np.array_equal(image, reference), variant.dtype


def test_albedo_arrays_and_transfer_functions_match_their_files(tmp_path):
    density = blob()
    albedo = np.stack(np.meshgrid(*[np.linspace(0.2, 0.9, n) for n in density.shape], indexing="ij"), axis=-1)
    write_vol(tmp_path / "d.vol", density)
    write_vol(tmp_path / "a.vol", albedo)
    files = warpath.scene_from_dict(medium_scene("d.vol", albedo="a.vol", g=0.3), base_dir=tmp_path)
    arrays = warpath.scene_from_dict(medium_scene(density, albedo=albedo, g=0.3))
    assert np.array_equal(warpath.render(arrays, **KW), warpath.render(files, **KW))

    points = [[0, 0, 1, 1, 1], [2, 3, 0.9, 0.4, 0.2], [4.5, 8, 0.2, 0.5, 0.9]]
    files = warpath.scene_from_dict(medium_scene("d.vol", transfer={"points": points}), base_dir=tmp_path)
    arrays = warpath.scene_from_dict(medium_scene(density, transfer={"points": np.array(points)}))
    assert np.array_equal(warpath.render(arrays, **KW), warpath.render(files, **KW))

    preset = {"preset": "gray-red-blue", "range": [0, 4], "max_density": 6}
    files = warpath.scene_from_dict(medium_scene("d.vol", transfer=preset), base_dir=tmp_path)
    arrays = warpath.scene_from_dict(medium_scene(density, transfer=preset))
    assert np.array_equal(warpath.render(arrays, **KW), warpath.render(files, **KW))


def test_physical_proportions_from_the_spacing(tmp_path):
    density = blob()
    write_vol(tmp_path / "d.vol", density)
    # A .vol file's voxels span its bounding box (here the unit cube): spacing 1/n per axis.
    files = warpath.scene_from_dict(medium_scene("d.vol", physical_proportions=True), base_dir=tmp_path)
    spacing = (1 / np.array(density.shape)).tolist()
    arrays = warpath.scene_from_dict(medium_scene(density, physical_proportions=True, spacing=spacing))
    assert np.array_equal(warpath.render(arrays, **KW), warpath.render(files, **KW))
    # Unit voxels: the 12x10x8 scan's own proportions, no longer a cube.
    proportional = warpath.scene_from_dict(medium_scene(density, physical_proportions=True, spacing=[1, 1, 1]))
    assert not np.array_equal(warpath.render(proportional, **KW), warpath.render(arrays, **KW))


def test_with_medium_replaces_a_scene_files_grid(tmp_path):
    density = blob()
    write_vol(tmp_path / "d.vol", density)
    files = warpath.scene_from_dict(medium_scene("d.vol"), base_dir=tmp_path)
    placeholder = warpath.scene_from_dict(medium_scene({"constant": 1.0, "resolution": [2, 2, 2]}))
    replaced = placeholder.with_medium("fog", density)
    assert replaced.media == ["fog"]
    assert np.array_equal(warpath.render(replaced, **KW), warpath.render(files, **KW))
    # The original scene is unchanged.
    assert not np.array_equal(warpath.render(placeholder, **KW), warpath.render(replaced, **KW))


def test_isosurface_of_an_array_equals_the_clis(cli, tmp_path):
    volume = blob((16, 14, 12))
    write_vol(tmp_path / "v.vol", volume)
    out = tmp_path / "iso.exr"
    cli("isosurface", tmp_path / "v.vol", "--isovalue", 2.0, "--resolution", "32x24", "--backend", "cpu", "-o", out)
    result = warpath.isosurface(volume, 2.0, resolution=(32, 24), backend="cpu")
    assert result["images"].shape == (1, 1, 24, 32, 3)
    assert np.array_equal(result["images"][0, 0], warpath.read(out))


def test_isosurface_orbit_and_shadows_equal_the_clis(cli, tmp_path):
    volume = blob((16, 14, 12))
    write_vol(tmp_path / "v.vol", volume)
    out = tmp_path / "iso.exr"
    cli("isosurface", tmp_path / "v.vol", "--isovalues", "1.5:2.5:0.5", "--orbit", 2, "--shadows", "--key-light",
        "-0.3,0.8,0.4", "--resolution", "24x16", "--backend", "cpu", "-o", out)
    result = warpath.isosurface(volume, [1.5, 2.0, 2.5], views=2, resolution=(24, 16), backend="cpu",
                                key_light=(-0.3, 0.8, 0.4), shadows=True)
    assert result["images"].shape == (3, 2, 16, 24, 3)
    for i, v in enumerate(result["isovalues"]):
        for k in range(2):
            expected = warpath.read(tmp_path / f"iso-iso{v:g}-view{k}.exr")
            assert np.array_equal(result["images"][i, k], expected), (v, k)
    plain = warpath.isosurface(volume, 2.0, views=2, resolution=(24, 16), backend="cpu")
    assert not np.array_equal(plain["images"][0], result["images"][1])


def test_an_isovalue_sweep_keeps_its_tree():
    volume = blob((16, 14, 12)).astype(np.float64)
    surface = warpath.Isosurface(np.asfortranarray(volume), backend="cpu")
    assert surface.shape == (16, 14, 12) and surface.backend == "cpu" and surface.bricks >= 1
    lo, hi = surface.range
    assert lo < 1.5 < 3.0 < hi
    out = surface.sweep([1.5, 2.0, 3.0], views=[(30, 20), (120, 10)], resolution=(20, 16))
    assert out["images"].shape == (3, 2, 16, 20, 3)
    for key in ["update_ms", "render_ms", "frame_ms"]:
        assert out[key].shape == (3, 2) and (out[key] >= 0).all()
    # Each frame is the single render of its isovalue and view, in any order.
    assert np.array_equal(out["images"][2, 1], surface.render(3.0, azimuth=120, elevation=10, resolution=(20, 16)))
    assert np.array_equal(out["images"][0, 0], surface.render(1.5, resolution=(20, 16)))
    assert not np.array_equal(out["images"][0, 0], out["images"][2, 0])
    orbit = surface.sweep(2.0, views=4, resolution=(8, 8))
    assert orbit["images"].shape == (1, 4, 8, 8, 3) and len(orbit["views"]) == 4
