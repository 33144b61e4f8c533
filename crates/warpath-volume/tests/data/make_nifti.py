"""Writes the NIfTI-1 test files in this folder with nibabel (independent of warpath's reader).

Every file holds a 5×4×3 grid (x fastest) with stored value v(i, j, k) = i + 10·j + 100·k − 50
(in the sample type; u8/u16/u32 files store v + 50), and voxel spacing (0.5, 1.25, 2.0) mm.
Run: python3 -m venv /tmp/nib && /tmp/nib/bin/pip install nibabel && /tmp/nib/bin/python make_nifti.py
"""
import gzip
import struct

import numpy as np
import nibabel as nib

shape = (5, 4, 3)
i, j, k = np.meshgrid(*[np.arange(n) for n in shape], indexing="ij")
v = i + 10 * j + 100 * k - 50


def save(name, data, dtype, big_endian=False, slope=None, inter=None, extension=False, four_d=False):
    data = data.astype(dtype)
    if four_d:
        data = data[..., np.newaxis]
    header = nib.Nifti1Header(endianness=">" if big_endian else "<")
    img = nib.Nifti1Image(data, np.diag([0.5, 1.25, 2.0, 1.0]), header=header)
    img.header.set_data_dtype(dtype)
    img.header.set_zooms((0.5, 1.25, 2.0) + ((1.0,) if four_d else ()))
    img.header.set_xyzt_units("mm")
    if extension:
        img.header.extensions.append(nib.nifti1.Nifti1Extension("comment", b"written by make_nifti.py" * 3))
    nib.save(img, name)
    if slope is not None:
        # nibabel chooses its own scaling when it writes; set scl_slope/scl_inter (bytes
        # 112..120) afterwards so the stored integers stay as given.
        opener = gzip.open if name.endswith(".gz") else open
        with opener(name, "rb") as f:
            raw = bytearray(f.read())
        raw[112:120] = struct.pack((">" if big_endian else "<") + "ff", slope, inter)
        with opener(name, "wb") as f:
            f.write(bytes(raw))
    back = nib.load(name)
    stored = data.astype(np.float64)
    expected = stored * slope + inter if slope is not None else stored
    assert np.array_equal(back.get_fdata().reshape(expected.shape), expected), name
    print(name, back.header.get_data_dtype(), back.shape, back.header["vox_offset"], back.header.endianness,
          back.header["scl_slope"], back.header["scl_inter"])


save("u8.nii", v + 50, np.uint8)
save("i16_be_scaled.nii", v, ">i2", big_endian=True, slope=0.5, inter=3.0)
save("u16_extension.nii", v + 50, np.uint16, extension=True)
save("i32.nii.gz", v, np.int32)
save("f32_be.nii.gz", v * 0.25, ">f4", big_endian=True)
save("f64_4d.nii", v * 0.125, np.float64, four_d=True)
save("i8.nii", v // 4, np.int8)
save("u32_scaled.nii.gz", v + 50, np.uint32, slope=-2.0, inter=1.5)
