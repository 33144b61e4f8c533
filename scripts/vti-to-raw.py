#!/usr/bin/env python3
"""vti-to-raw: write the scalar array of a VTK XML ImageData file (.vti) as a raw volume.

Standard library only. Reads the one <DataArray> of <PointData> stored inline as
format="binary" (base64), zlib-compressed (vtkZLibDataCompressor) or not, with a UInt32 or
UInt64 header; writes its samples unchanged, x fastest (VTK's order), to OUT and prints the
resolution, sample type, spacing and value range a scene's raw layout needs.

    scripts/vti-to-raw.py frog_tissues.vti frog_tissues.raw
"""
import base64
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

TYPES = {"UInt8": ("B", 1), "Int8": ("b", 1), "UInt16": ("H", 2), "Int16": ("h", 2),
         "Float32": ("f", 4), "Float64": ("d", 8), "Int32": ("i", 4), "UInt32": ("I", 4)}


def main(src, dst):
    root = ET.parse(src).getroot()
    if root.get("type") != "ImageData":
        sys.exit(f"vti-to-raw: {src}: not ImageData but {root.get('type')}")
    little = root.get("byte_order", "LittleEndian") == "LittleEndian"
    end = "<" if little else ">"
    header_t = "Q" if root.get("header_type") == "UInt64" else "I"
    hsize = struct.calcsize(header_t)
    zlib_compressed = root.get("compressor") == "vtkZLibDataCompressor"
    if root.get("compressor") not in (None, "vtkZLibDataCompressor"):
        sys.exit(f"vti-to-raw: {src}: compressor {root.get('compressor')} not supported")
    image = root.find("ImageData")
    extent = [int(v) for v in image.get("WholeExtent").split()]
    dims = [extent[1] - extent[0] + 1, extent[3] - extent[2] + 1, extent[5] - extent[4] + 1]
    spacing = [float(v) for v in image.get("Spacing", "1 1 1").split()]
    arrays = image.findall("Piece/PointData/DataArray")
    if len(arrays) != 1 or arrays[0].get("format") != "binary":
        sys.exit(f"vti-to-raw: {src}: expected one inline binary DataArray, found {len(arrays)}")
    array = arrays[0]
    code, size = TYPES[array.get("type")]
    if int(array.get("NumberOfComponents", "1")) != 1:
        sys.exit(f"vti-to-raw: {src}: only scalar arrays are supported")
    text = "".join(array.text.split()).encode()
    if zlib_compressed:
        # The block header is base64-encoded on its own, then the compressed blocks.
        first = base64.b64decode(text[: 4 * ((3 * hsize + 2) // 3)])
        nblocks = struct.unpack(end + header_t, first[:hsize])[0]
        header_bytes = (3 + nblocks) * hsize
        header_chars = 4 * ((header_bytes + 2) // 3)
        header = struct.unpack(end + header_t * (3 + nblocks), base64.b64decode(text[:header_chars])[:header_bytes])
        data = base64.b64decode(text[header_chars:])
        out, offset = [], 0
        for csize in header[3:]:
            out.append(zlib.decompress(data[offset:offset + csize]))
            offset += csize
        raw = b"".join(out)
    else:
        blob = base64.b64decode(text)
        n = struct.unpack(end + header_t, blob[:hsize])[0]
        raw = blob[hsize:hsize + n]
    count = dims[0] * dims[1] * dims[2]
    if len(raw) != count * size:
        sys.exit(f"vti-to-raw: {src}: {len(raw)} bytes of data, expected {count * size}")
    values = struct.unpack(end + code * count, raw)
    with open(dst, "wb") as f:
        f.write(raw)
    kind = {"B": "u8", "H": "u16", "f": "f32"}.get(code, array.get("type"))
    order = "little" if little or size == 1 else "big"
    print(f"vti-to-raw: {dst}: {dims[0]}x{dims[1]}x{dims[2]} {kind} ({order} endian), "
          f"spacing {spacing[0]:g} {spacing[1]:g} {spacing[2]:g}, values {min(values)}..{max(values)}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
