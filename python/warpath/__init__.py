"""warpath from Python: render scenes, volumes held in NumPy arrays and isosurface sweeps
into NumPy arrays, through the same Rust API the `warpath` command line calls.

>>> import warpath
>>> scene = warpath.load("cornell")
>>> image = warpath.render(scene, spp=64, resolution=(256, 256), backend="cpu")
>>> image.shape, image.dtype
((256, 256, 3), dtype('float32'))
>>> warpath.write("cornell.png", image)

See docs/python.md for the whole API; `warpath.ray` (imported on its own, it needs Ray)
spreads renders over a Ray cluster.
"""

from ._warpath import (  # noqa: F401
    Error,
    Film,
    Isosurface,
    Scene,
    __version__,
    devices,
    isosurface,
    kernel_cache_path,
    load,
    loads,
    merge,
    read,
    render,
    render_film,
    render_frames,
    scene_from_dict,
    write,
)

__all__ = [
    "Error",
    "Film",
    "Isosurface",
    "Scene",
    "__version__",
    "devices",
    "isosurface",
    "kernel_cache_path",
    "load",
    "loads",
    "merge",
    "read",
    "render",
    "render_film",
    "render_frames",
    "scene_from_dict",
    "write",
]
