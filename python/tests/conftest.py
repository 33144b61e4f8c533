"""Shared helpers of the Python package's tests (CPU backend throughout).

The comparisons with the command line run the `warpath` binary: $WARPATH_CLI, else
target/release/warpath of this checkout (`cargo build --release -p warpath-cli`).
"""

import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def cli_path():
    given = os.environ.get("WARPATH_CLI")
    path = Path(given) if given else REPO / "target" / "release" / "warpath"
    return path if path.is_file() else None


@pytest.fixture
def cli():
    """Runs the warpath command line with the given arguments; returns its stderr."""
    path = cli_path()
    if path is None:
        pytest.skip("the warpath CLI is not built (cargo build --release -p warpath-cli, or set WARPATH_CLI)")

    def run(*args):
        done = subprocess.run([str(path), *map(str, args)], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stderr

    return run


def write_vol(path, volume):
    """Writes `volume` (indexed [x, y, z], or [x, y, z, c]) as a Mitsuba .vol file: the
    format's own layout (x fastest, channels innermost), written here independently of
    warpath."""
    volume = np.asarray(volume, dtype=np.float32)
    if volume.ndim == 3:
        volume = volume[..., None]
    nx, ny, nz, channels = volume.shape
    header = b"VOL" + bytes([3]) + struct.pack("<5i", 1, nx, ny, nz, channels)
    header += struct.pack("<6f", 0, 0, 0, 1, 1, 1)
    body = np.ascontiguousarray(volume.transpose(2, 1, 0, 3)).astype("<f4").tobytes()
    Path(path).write_bytes(header + body)


def blob(shape=(12, 10, 8), seed=3):
    """A smooth positive density with some structure, indexed [x, y, z]."""
    rng = np.random.default_rng(seed)
    x, y, z = np.meshgrid(*[np.linspace(-1, 1, n) for n in shape], indexing="ij")
    d = np.exp(-3 * (x**2 + 0.5 * y**2 + 2 * z**2)) * 4 + rng.random(shape) * 0.5
    return d.astype(np.float32)


def medium_scene(density, **medium):
    """A dict scene: a grid medium `density` (an array or a file name) inside a null cube,
    lit by an area light, as scenes/media.toml builds one (small, for the CPU)."""
    return {
        "render": {"width": 24, "height": 16, "spp": 2, "max_depth": 16, "seed": 5},
        "camera": {"look_at": {"origin": [0, 0.5, 4.5], "target": [0, 0, 0]}, "fov": 40},
        "material": [
            {"name": "boundary", "type": "null"},
            {"name": "floor", "type": "diffuse", "base_color": [0.5, 0.5, 0.5]},
            {"name": "light", "type": "black", "emission": [12, 11, 10]},
        ],
        "medium": [
            {
                "name": "fog",
                "type": "grid",
                "density": density,
                "scale": 3,
                "bounds": [[-1, -1, -1], [1, 1, 1]],
                **medium,
            }
        ],
        "shape": [
            {"type": "cube", "material": "boundary", "interior": "fog"},
            {
                "type": "rectangle",
                "material": "floor",
                "rotate": {"axis": [1, 0, 0], "angle": -90},
                "translate": [0, -1.2, 0],
                "scale": 5,
            },
            {
                "type": "rectangle",
                "material": "light",
                "rotate": {"axis": [1, 0, 0], "angle": 90},
                "translate": [0, 3, 0],
            },
        ],
    }
