"""warpath.render_film, warpath.Film and warpath.merge (issue 32): partial renders of sample
ranges merge into the render of their union, on the CPU bit for bit."""

import pickle

import numpy as np
import pytest

import warpath

KW = dict(resolution=(24, 16), seed=4, backend="cpu", progress=False)


@pytest.fixture(scope="module")
def cornell():
    return warpath.load("cornell")


def test_parts_merge_into_the_whole_render(cornell):
    whole = warpath.render_film(cornell, spp=12, pass_size=4, **KW)
    assert whole.samples == (0, 12) and (whole.width, whole.height) == (24, 16)
    # Out of order: merge adds them in ascending order of their ranges.
    parts = [warpath.render_film(cornell, samples=(a, a + 4), pass_size=4, **KW) for a in (8, 0, 4)]
    merged = warpath.merge(parts)
    assert merged.samples == (0, 12) and merged.fingerprint == whole.fingerprint
    assert np.array_equal(merged.sum, whole.sum)
    assert np.array_equal(merged.sum_sq, whole.sum_sq)
    assert np.array_equal(merged.counts, whole.counts) and (merged.counts == 12).all()
    assert np.array_equal(merged.image(), whole.image())
    # The image of the default render (one sample a pass) is the same.
    assert np.array_equal(merged.image(), warpath.render(cornell, spp=12, **KW))
    assert np.array_equal(whole.image(), warpath.render(cornell, spp=12, pass_size=4, **KW))
    assert np.array_equal(merged.variance(), whole.variance())


def test_film_pickles_and_round_trips_through_wfilm(cornell, tmp_path):
    film = warpath.render_film(cornell, samples=(3, 5), **KW)
    again = pickle.loads(pickle.dumps(film))
    assert again.samples == (3, 5) and again.fingerprint == film.fingerprint
    assert np.array_equal(again.sum, film.sum) and np.array_equal(again.sum_sq, film.sum_sq)
    path = tmp_path / "part.wfilm"
    film.write(path)
    read = warpath.Film.read(path)
    assert read.to_bytes() == film.to_bytes() == path.read_bytes()
    assert "cpu" in read.provenance


def test_merge_refusals(cornell, tmp_path):
    a = warpath.render_film(cornell, samples=(0, 2), **KW)
    b = warpath.render_film(cornell, samples=(1, 3), **KW)
    with pytest.raises(ValueError, match=r"film 1 \(samples 1..3\) overlaps film 0"):
        warpath.merge([a, b])
    c = warpath.render_film(cornell, samples=(4, 6), **KW)
    with pytest.raises(ValueError, match="gap: samples 2..4"):
        warpath.merge([a, c])
    other_seed = warpath.render_film(cornell, samples=(2, 4), **dict(KW, seed=5))
    with pytest.raises(ValueError, match="film 1: rendered from another scene or with other settings"):
        warpath.merge([a, other_seed])
    with pytest.raises(ValueError, match="nothing to merge"):
        warpath.merge([])
    data = bytearray(a.to_bytes())
    data[100] ^= 1
    with pytest.raises(ValueError, match="damaged"):
        warpath.Film.from_bytes(bytes(data))
    short = tmp_path / "short.wfilm"
    short.write_bytes(a.to_bytes()[:-20])
    with pytest.raises(ValueError, match="short.wfilm"):
        warpath.Film.read(short)
    with pytest.raises(ValueError, match="without spp"):
        warpath.render_film(cornell, samples=(0, 2), spp=2, **KW)
    with pytest.raises(ValueError, match="expected 0 <= a < b"):
        warpath.render_film(cornell, samples=(3, 3), **KW)


def test_cli_merges_films_written_from_python(cli, cornell, tmp_path):
    paths = []
    for a in (0, 3):
        path = tmp_path / f"part{a}.wfilm"
        warpath.render_film(cornell, samples=(a, a + 3), **KW).write(path)
        paths.append(path)
    out = tmp_path / "merged.exr"
    cli("merge", *paths, "-o", out)
    merged = warpath.merge([warpath.Film.read(p) for p in paths])
    assert np.array_equal(warpath.read(out), merged.image())
    # And the CLI's own part merges with Python's.
    cli("render", "cornell", "--backend", "cpu", "--samples", "6..8", "--resolution", "24x16", "--seed", 4,
        "--film", tmp_path / "cli.wfilm")
    three = warpath.merge([merged, warpath.Film.read(tmp_path / "cli.wfilm")])
    assert three.samples == (0, 8)
    assert np.array_equal(three.image(), warpath.render(cornell, spp=8, **KW))


def test_render_frames_range_is_a_slice_of_the_sequence(cornell):
    kw = dict(orbit=20.0, resolution=(16, 12), seed=2, backend="cpu", progress=False)
    whole = warpath.render_frames(cornell, 5, **kw)
    tail = warpath.render_frames(cornell, 5, range=(2, 5), **kw)
    assert tail["images"].shape == (3, 12, 16, 3) and len(tail["ms"]) == 3
    assert np.array_equal(tail["images"], whole["images"][2:5])
    with pytest.raises(ValueError, match="range"):
        warpath.render_frames(cornell, 5, range=(4, 6), **kw)
