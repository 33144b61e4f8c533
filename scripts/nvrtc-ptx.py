#!/usr/bin/env python3
"""nvrtc-ptx: compile one CUDA program of warpath to PTX with NVRTC (the pip wheel that
.ci/nvrtc-check installs; no GPU needed), with the options of crates/warpath-cuda/src/compiler.rs,
and print per kernel entry its local-memory loads and stores and its global loads: an array
indexed by a value known only at run time lives in local memory, which is how the isosurface
march's slowness was found (docs/benchmarks/isosurface.md, "The march in registers").

  LD_LIBRARY_PATH=target/nvrtc/nvidia/cu13/lib scripts/nvrtc-ptx.py crates/warpath-cuda/kernels/isosurface.cu [OUT.ptx]
"""
import ctypes
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
if len(sys.argv) < 2:
    sys.exit(__doc__)
try:
    lib = ctypes.CDLL("libnvrtc.so.13")
except OSError as e:
    sys.exit(f"nvrtc-ptx: {e}: put the NVRTC wheel's lib folder on LD_LIBRARY_PATH (.ci/nvrtc-check installs it)")
source = open(sys.argv[1]).read().encode()
program = ctypes.c_void_p()
if lib.nvrtcCreateProgram(ctypes.byref(program), source, sys.argv[1].encode(), 0, None, None) != 0:
    sys.exit("nvrtc-ptx: nvrtcCreateProgram failed")
options = [b"--gpu-architecture=compute_90", b"-std=c++17", b"--ftz=false", b"--prec-div=true",
           b"--prec-sqrt=true", b"--fmad=true", b"-I" + os.path.join(root, "crates/warpath-cuda/kernels").encode()]
result = lib.nvrtcCompileProgram(program, len(options), (ctypes.c_char_p * len(options))(*options))
size = ctypes.c_size_t()
lib.nvrtcGetProgramLogSize(program, ctypes.byref(size))
log = ctypes.create_string_buffer(size.value)
lib.nvrtcGetProgramLog(program, log)
if log.value.strip():
    print(log.value.decode(), file=sys.stderr)
if result != 0:
    sys.exit(f"nvrtc-ptx: {sys.argv[1]} does not compile (NVRTC result {result})")
lib.nvrtcGetPTXSize(program, ctypes.byref(size))
ptx = ctypes.create_string_buffer(size.value)
lib.nvrtcGetPTX(program, ptx)
text = ptx.value.decode()
if len(sys.argv) > 2:
    open(sys.argv[2], "w").write(text)
print("| kernel | ld.local | st.local | ld.global |\n|---|---|---|---|")
for entry in re.split(r"\n(?=\.visible \.entry )", text)[1:]:
    name = re.match(r"\.visible \.entry (\w+)", entry).group(1)
    print(f"| `{name}` | {entry.count('ld.local')} | {entry.count('st.local')} | {entry.count('ld.global')} |")
