"""warpath from Python, notebook style (each `# %%` is a cell in VS Code or Jupyter's
py:percent format; `python examples/notebook.py` runs them all).

1. the Cornell box, rendered to a NumPy array;
2. a scan held in a NumPy array (a synthetic head phantom here: pass a real one, e.g. the
   MRI read with nibabel) as a medium through a transfer function;
3. an isosurface sweep of the same array, the brick tree built once.

Install: `pip install ./python` from the repository root (docs/python.md). On a machine
without a GPU every cell renders on the CPU; WARPATH_EXAMPLE_SCALE=4 makes the images 4x
larger on each side.
"""

# %%
import os

import numpy as np

import warpath

SCALE = int(os.environ.get("WARPATH_EXAMPLE_SCALE", "1"))
OUT = os.environ.get("WARPATH_EXAMPLE_OUT", "example-out")
os.makedirs(OUT, exist_ok=True)

try:
    import matplotlib.pyplot as plt
except ImportError:  # the images are written to OUT either way
    plt = None


def show(title, image):
    """Shows a linear image (tone-mapped by a simple clamp) when matplotlib is installed."""
    if plt is None:
        return
    plt.figure(figsize=(5, 5 * image.shape[0] / image.shape[1]))
    plt.imshow(np.clip(image, 0, 1) ** (1 / 2.2))
    plt.title(title)
    plt.axis("off")


print(f"warpath {warpath.__version__}; GPUs: {[d['name'] for d in warpath.devices()] or 'none'}")

# %% 1. The Cornell box: a float32 (H, W, 3) array of linear RGB, the film's mean.
cornell = warpath.load("cornell")
print(cornell)
result = warpath.render(cornell, spp=16, resolution=(96 * SCALE, 96 * SCALE), seed=1, variance=True)
image = result["image"]
print(f"rendered {image.shape} in {result['seconds']:.2f} s on {result['backend']}; "
      f"mean variance of the mean {result['variance'].mean():.2e}")
warpath.write(f"{OUT}/cornell.png", image)
warpath.write(f"{OUT}/cornell.exr", image)
show("Cornell box", image)

# %% 2. A scan from an array through a transfer function.
n = 48 * SCALE
x, y, z = np.meshgrid(*[np.linspace(-1, 1, n)] * 3, indexing="ij")
skull = ((x / 0.8) ** 2 + (y / 0.95) ** 2 + (z / 0.85) ** 2 < 1) & ((x / 0.7) ** 2 + (y / 0.85) ** 2 + (z / 0.75) ** 2 > 1)
brain = (x / 0.68) ** 2 + (y / 0.83) ** 2 + (z / 0.73) ** 2 < 1
ventricles = ((np.abs(x) - 0.15) / 0.08) ** 2 + (y / 0.3) ** 2 + (z / 0.15) ** 2 < 1
scan = (900 * skull + 400 * brain - 250 * ventricles + 30 * np.sin(9 * x) * brain).astype(np.int16)  # [x, y, z]
cut = scan.copy()
cut[:, :, n // 2:] = 0  # the front half (toward the camera) cut away

scene = warpath.scene_from_dict({
    "render": {"width": 96 * SCALE, "height": 96 * SCALE, "spp": 16, "max_depth": 32},
    "camera": {"look_at": {"origin": [0, 0.6, 3.4], "target": [0, 0, 0]}, "fov": 38},
    "environment": {"type": "constant", "radiance": [0.5, 0.5, 0.55]},
    "material": [{"name": "boundary", "type": "null"}],
    "medium": [{
        "name": "scan",
        "type": "grid",
        "density": cut,
        # value, density, r, g, b: air clear, fluid blue, tissue red, bone dense white.
        "transfer": {"points": np.array([[0, 0, 1, 1, 1], [120, 0, 1, 1, 1], [150, 3, 0.3, 0.5, 0.95],
                                         [400, 6, 0.95, 0.45, 0.35], [700, 8, 0.9, 0.7, 0.6],
                                         [900, 60, 0.97, 0.96, 0.92]])},
        "bounds": [[-1, -1, -1], [1, 1, 1]],
        "spacing": [1.0, 1.0, 1.0],
        "physical_proportions": True,
    }],
    "shape": [{"type": "cube", "material": "boundary", "interior": "scan"}],
})
print(scene, scene.estimator)
volume_image = warpath.render(scene, seed=2)
warpath.write(f"{OUT}/scan.png", volume_image, exposure=0.5)
show("scan through a transfer function", volume_image * 2**0.5)

# %% 3. An isosurface sweep: the brick tree is built once and condensed per isovalue.
surface = warpath.Isosurface(scan.astype(np.float32), brick=8)
print(surface)
sweep = surface.sweep([200, 500, 800], views=3, resolution=(64 * SCALE, 64 * SCALE))
print(f"{sweep['images'].shape[0]} isovalues x {sweep['images'].shape[1]} views on {sweep['backend']}: "
      f"tree updates {sweep['update_ms'].mean():.2f} ms, renders {sweep['render_ms'].mean():.2f} ms a frame")
for i, v in enumerate(sweep["isovalues"]):
    warpath.write(f"{OUT}/iso-{v:g}.png", np.concatenate(list(sweep["images"][i]), axis=1))
if plt is not None:
    rows = [np.concatenate(list(views), axis=1) for views in sweep["images"]]
    show("isovalues 200, 500, 800 from three views", np.concatenate(rows, axis=0))
    plt.show()
print(f"images in {OUT}/")
