"""Type stubs of warpath's Python package (the extension warpath._warpath); docs/python.md
documents every function."""

import os
from typing import Any, Callable, Literal, Mapping, Optional, Sequence, Tuple, TypedDict, Union, final

import numpy as np
import numpy.typing as npt

__version__: str
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

_PathLike = Union[str, "os.PathLike[str]"]
_Resolution = Union[Tuple[int, int], str]
_Progress = Union[bool, Callable[[int, int], Any], None]
_Backend = str  # "auto" | "cpu" | "cuda" | "cuda:N"
_Image = npt.NDArray[np.float32]

class Error(Exception):
    """A failure that is not a bad argument: the GPU, its driver or a kernel, reading or
    writing a file, an internal error."""

@final
class Scene:
    """A scene in memory: geometry, materials, media, camera and [render] settings."""

    @property
    def name(self) -> str: ...
    @property
    def triangles(self) -> int: ...
    @property
    def resolution(self) -> Tuple[int, int]: ...
    @property
    def spp(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def materials(self) -> list[str]: ...
    @property
    def media(self) -> list[str]: ...
    @property
    def isosurfaces(self) -> list[str]: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def estimator(self) -> str: ...
    def with_medium(
        self,
        name: str,
        density: npt.ArrayLike,
        *,
        albedo: Optional[npt.ArrayLike] = None,
        transfer: Union[str, Mapping[str, Any], None] = None,
        scale: Optional[float] = None,
        g: Optional[float] = None,
        spacing: Optional[Sequence[float]] = None,
        physical_proportions: bool = False,
        majorant_cell: Optional[int] = None,
    ) -> "Scene": ...

def load(path: _PathLike) -> Scene: ...
def loads(text: str, *, name: str = "scene", base_dir: Optional[_PathLike] = None) -> Scene: ...
def scene_from_dict(
    scene: Mapping[str, Any], *, name: str = "scene", base_dir: Optional[_PathLike] = None
) -> Scene: ...

class _RenderResult(TypedDict, total=False):
    image: _Image
    variance: _Image
    counts: npt.NDArray[np.uint32]
    done: int
    seconds: float
    prepare_seconds: float
    rays: Optional[int]
    backend: str
    renderer: str

def render(
    scene: Scene,
    spp: Optional[int] = None,
    resolution: Optional[_Resolution] = None,
    backend: _Backend = "auto",
    integrator: Literal["path", "restir-di"] = "path",
    strategy: Optional[str] = None,
    seed: Optional[int] = None,
    max_depth: Optional[int] = None,
    frames: Optional[int] = None,
    progress: _Progress = None,
    variance: bool = False,
    counts: bool = False,
    pass_size: Optional[int] = None,
    count_rays: bool = False,
) -> Any:
    """A float32 array (H, W, 3), linear RGB; a _RenderResult dict with variance=True or
    counts=True."""

class _FramesResult(TypedDict):
    images: npt.NDArray[np.float32]
    ms: npt.NDArray[np.float64]

def render_frames(
    scene: Scene,
    frames: int,
    orbit: float = 0.0,
    resolution: Optional[_Resolution] = None,
    backend: _Backend = "auto",
    seed: Optional[int] = None,
    max_depth: Optional[int] = None,
    progress: _Progress = None,
    range: Optional[Tuple[int, int]] = None,
) -> _FramesResult: ...

@final
class Film:
    """Per-pixel sums, squared sums and sample counts of the sample indices `samples` of one
    scene and settings (`fingerprint`); pickles as its .wfilm bytes."""

    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def samples(self) -> Tuple[int, int]: ...
    @property
    def fingerprint(self) -> int: ...
    @property
    def provenance(self) -> str: ...
    @property
    def counts(self) -> npt.NDArray[np.uint32]: ...
    @property
    def sum(self) -> npt.NDArray[np.float64]: ...
    @property
    def sum_sq(self) -> npt.NDArray[np.float64]: ...
    def image(self) -> _Image: ...
    def variance(self) -> _Image: ...
    def write(self, path: _PathLike) -> None: ...
    @staticmethod
    def read(path: _PathLike) -> "Film": ...
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes) -> "Film": ...

def render_film(
    scene: Scene,
    samples: Optional[Tuple[int, int]] = None,
    spp: Optional[int] = None,
    resolution: Optional[_Resolution] = None,
    backend: _Backend = "auto",
    strategy: Optional[str] = None,
    seed: Optional[int] = None,
    max_depth: Optional[int] = None,
    pass_size: Optional[int] = None,
    progress: _Progress = None,
) -> Film: ...
def merge(films: Sequence[Film]) -> Film: ...

class _SweepResult(TypedDict):
    images: npt.NDArray[np.float32]
    isovalues: list[float]
    views: list[Tuple[float, float]]
    update_ms: npt.NDArray[np.float64]
    render_ms: npt.NDArray[np.float64]
    frame_ms: npt.NDArray[np.float64]
    backend: str

_Views = Union[int, Sequence[Tuple[float, float]], None]

@final
class Isosurface:
    def __new__(cls, volume: Union[npt.ArrayLike, _PathLike], brick: int = 16, backend: _Backend = "auto") -> "Isosurface": ...
    @property
    def backend(self) -> str: ...
    @property
    def shape(self) -> Tuple[int, int, int]: ...
    @property
    def range(self) -> Tuple[float, float]: ...
    @property
    def bricks(self) -> int: ...
    def sweep(
        self,
        isovalues: Union[float, Sequence[float], npt.ArrayLike],
        views: _Views = None,
        resolution: Optional[Tuple[int, int]] = None,
        key_light: Optional[Tuple[float, float, float]] = None,
        shadows: bool = False,
    ) -> _SweepResult: ...
    def render(
        self,
        isovalue: float,
        azimuth: float = 30.0,
        elevation: float = 20.0,
        resolution: Optional[Tuple[int, int]] = None,
        key_light: Optional[Tuple[float, float, float]] = None,
        shadows: bool = False,
    ) -> _Image: ...

def isosurface(
    volume: Union[npt.ArrayLike, _PathLike],
    isovalues: Union[float, Sequence[float], npt.ArrayLike],
    views: _Views = None,
    resolution: Optional[Tuple[int, int]] = None,
    backend: _Backend = "auto",
    brick: int = 16,
    key_light: Optional[Tuple[float, float, float]] = None,
    shadows: bool = False,
) -> _SweepResult: ...

def write(path: _PathLike, image: npt.ArrayLike, exposure: float = 0.0) -> None: ...
def read(path: _PathLike) -> _Image: ...
def devices() -> list[dict[str, Any]]: ...
def kernel_cache_path() -> Optional[str]: ...
