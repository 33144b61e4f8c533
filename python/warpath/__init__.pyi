"""Type stubs of warpath's Python package (the extension warpath._warpath); docs/python.md
documents every function."""

import os
from typing import Any, Callable, Literal, Mapping, Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str

PathLike = Union[str, "os.PathLike[str]"]
Resolution = Union[Tuple[int, int], str]
Progress = Union[bool, Callable[[int, int], Any], None]
Backend = str  # "auto" | "cpu" | "cuda" | "cuda:N"
Image = npt.NDArray[np.float32]

class Error(Exception):
    """A failure that is not a bad argument: the GPU, its driver or a kernel, reading or
    writing a file, an internal error."""

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

def load(path: PathLike) -> Scene: ...
def loads(text: str, *, name: str = "scene", base_dir: Optional[PathLike] = None) -> Scene: ...
def scene_from_dict(
    scene: Mapping[str, Any], *, name: str = "scene", base_dir: Optional[PathLike] = None
) -> Scene: ...

class RenderResult(TypedDict, total=False):
    image: Image
    variance: Image
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
    resolution: Optional[Resolution] = None,
    backend: Backend = "auto",
    integrator: Literal["path", "restir-di"] = "path",
    strategy: Optional[str] = None,
    seed: Optional[int] = None,
    max_depth: Optional[int] = None,
    frames: Optional[int] = None,
    progress: Progress = True,
    variance: bool = False,
    counts: bool = False,
    pass_size: Optional[int] = None,
    count_rays: bool = False,
) -> Any:
    """A float32 array (H, W, 3), linear RGB; a RenderResult dict with variance=True or
    counts=True."""

class FramesResult(TypedDict):
    images: npt.NDArray[np.float32]
    ms: npt.NDArray[np.float64]

def render_frames(
    scene: Scene,
    frames: int,
    orbit: float = 0.0,
    resolution: Optional[Resolution] = None,
    backend: Backend = "auto",
    seed: Optional[int] = None,
    max_depth: Optional[int] = None,
    progress: Progress = True,
) -> FramesResult: ...

class SweepResult(TypedDict):
    images: npt.NDArray[np.float32]
    isovalues: list[float]
    views: list[Tuple[float, float]]
    update_ms: npt.NDArray[np.float64]
    render_ms: npt.NDArray[np.float64]
    frame_ms: npt.NDArray[np.float64]
    backend: str

Views = Union[int, Sequence[Tuple[float, float]], None]

class Isosurface:
    def __init__(self, volume: Union[npt.ArrayLike, PathLike], brick: int = 16, backend: Backend = "auto") -> None: ...
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
        views: Views = None,
        resolution: Tuple[int, int] = (512, 512),
        key_light: Optional[Tuple[float, float, float]] = None,
        shadows: bool = False,
    ) -> SweepResult: ...
    def render(
        self,
        isovalue: float,
        azimuth: float = 30.0,
        elevation: float = 20.0,
        resolution: Tuple[int, int] = (512, 512),
        key_light: Optional[Tuple[float, float, float]] = None,
        shadows: bool = False,
    ) -> Image: ...

def isosurface(
    volume: Union[npt.ArrayLike, PathLike],
    isovalues: Union[float, Sequence[float], npt.ArrayLike],
    views: Views = None,
    resolution: Tuple[int, int] = (512, 512),
    backend: Backend = "auto",
    brick: int = 16,
    key_light: Optional[Tuple[float, float, float]] = None,
    shadows: bool = False,
) -> SweepResult: ...

def write(path: PathLike, image: npt.ArrayLike, exposure: float = 0.0) -> None: ...
def read(path: PathLike) -> Image: ...
def devices() -> list[dict[str, Any]]: ...
def kernel_cache_path() -> Optional[str]: ...
