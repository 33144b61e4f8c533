#!/usr/bin/env python3
"""kernel-registers: ptxas's resource report (registers, stack, spills) of one CUDA program,
compiled through NVRTC for sm_90 with the runtime compiler's options (warpath-cuda
src/compiler.rs) plus `-Xptxas -v`; no GPU needed. Needs the NVRTC wheel that .ci/nvrtc-check
installs (target/nvrtc, or $WARPATH_NVRTC_DIR as there). The register counts in docs/benchmarks/restir.md come from it.

  python3 scripts/kernel-registers.py crates/warpath-cuda/kernels/restir.cu -DWARPATH_WIDE_BVH=1
  KDIR=/tmp/old/crates/warpath-cuda/kernels python3 scripts/kernel-registers.py /tmp/old/.../restir.cu
  (KDIR: the include folder, for a tree exported with `git archive REV crates/warpath-cuda/kernels`)
"""
import ctypes
import glob
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
nvrtc_dir = os.environ.get("WARPATH_NVRTC_DIR", os.path.join(root, "target/nvrtc"))
libs = glob.glob(os.path.join(nvrtc_dir, "**/libnvrtc.so.13"), recursive=True)
if len(sys.argv) < 2 or not libs:
    sys.exit(__doc__ if len(sys.argv) < 2 else "kernel-registers: no NVRTC wheel under target/nvrtc (run .ci/nvrtc-check once)")
library = os.environ.get("NVRTC", libs[0])
# NVRTC opens its builtins library by name: load it first from the same folder.
for builtins in glob.glob(os.path.join(os.path.dirname(library), "libnvrtc-builtins.so.13*")):
    ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)
lib = ctypes.CDLL(library)
path, extra = sys.argv[1], sys.argv[2:]
prog = ctypes.c_void_p()
if lib.nvrtcCreateProgram(ctypes.byref(prog), open(path, "rb").read(), path.encode(), 0, None, None) != 0:
    sys.exit(f"kernel-registers: NVRTC could not create a program of {path}")
kernels = os.environ.get("KDIR", os.path.join(root, "crates/warpath-cuda/kernels"))
options = ["--gpu-architecture=sm_90", "-std=c++17", "--ftz=false", "--prec-div=true", "--prec-sqrt=true",
           "--fmad=true", "-I" + kernels, "-Xptxas", "-v"] + extra
array = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
status = lib.nvrtcCompileProgram(prog, len(options), array)
size = ctypes.c_size_t()
lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
log = ctypes.create_string_buffer(size.value)
lib.nvrtcGetProgramLog(prog, log)
text = log.value.decode(errors="replace")
if status != 0:
    sys.exit(text)
# One line per entry point: its name and what ptxas reports for it.
for name, usage in re.findall(r"Compiling entry function '(\w+)'.*?\n(?:.*\n)*?.*?(Used \d+ registers[^\n]*)", text):
    print(f"{name}: {usage}")
