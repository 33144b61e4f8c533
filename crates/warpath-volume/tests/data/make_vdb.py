"""Writes the OpenVDB test files in this folder with OpenVDB's own Python module.

Run with Debian's python3-openvdb (OpenVDB 10.0.1): /usr/bin/python3 make_vdb.py, then
/usr/bin/python3 ../../../../scripts/vdb-to-vol.py X.vdb X.vol for X in tiles, blob_half.
- blob.vdb: float grid "density" (background 0): voxels (i, j, k) with
  (i + ½)² + (j − 7.5)² + (k − 11.5)² < 7.5² are active with value 1 + 0.01i + 0.1j + 0.001k
  (active bounding box (−7, 1, 5)…(6, 14, 18), 1,736 voxels); voxel size 0.5.
- blob_half.vdb: the same grid saved with half floats.
- tiles.vdb: a Vec3 grid "velocity" first, then float grid "smoke" (background 0.25): the box
  (0, 0, 0)…(31, 15, 7) filled active with 2.0 (OpenVDB stores whole 8³ leaves of it as
  tiles), plus voxel (40, 3, 2) = 5.0 active and voxel (35, 1, 1) = 7.0 inactive.
"""
import pyopenvdb as vdb


def blob():
    g = vdb.FloatGrid(0.0)
    g.name = "density"
    g.transform = vdb.createLinearTransform(voxelSize=0.5)
    acc = g.getAccessor()
    for k in range(4, 20):
        for j in range(0, 16):
            for i in range(-8, 8):
                if (i + 0.5) ** 2 + (j - 7.5) ** 2 + (k - 11.5) ** 2 < 7.5 ** 2:
                    acc.setValueOn((i, j, k), 1.0 + 0.01 * i + 0.1 * j + 0.001 * k)
    return g


g = blob()
vdb.write("blob.vdb", grids=[g])
g.saveFloatAsHalf = True
vdb.write("blob_half.vdb", grids=[g])

v = vdb.Vec3SGrid()
v.name = "velocity"
v.getAccessor().setValueOn((1, 2, 3), (1.0, 2.0, 3.0))
s = vdb.FloatGrid(0.25)
s.name = "smoke"
s.fill((0, 0, 0), (31, 15, 7), 2.0, True)
acc = s.getAccessor()
acc.setValueOn((40, 3, 2), 5.0)
acc.setValueOff((35, 1, 1), 7.0)
vdb.write("tiles.vdb", grids=[v, s])
for name in ["blob.vdb", "blob_half.vdb", "tiles.vdb"]:
    for grid in vdb.readAll(name)[0]:
        print(name, grid.name, type(grid).__name__, grid.evalActiveVoxelBoundingBox(), grid.activeVoxelCount(),
              grid.leafCount())
