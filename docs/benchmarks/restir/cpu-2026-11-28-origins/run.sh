#!/bin/bash
# usage: run.sh NAME [options...]
cd /work/h-restir
name=$1; shift
/work/h-restir-target/release/warpath-bench restir scenes/restir-fixtures.toml --backend cpu --resolution 192x108 --reference-spp 1024 --frames 36 --history 20 --target luminance --bias ${BIAS:-ray-traced} --cache /work/h-restir-target/restir-bench --json /work/h-restir-target/study/$name.json --time-ratio ${RATIO:-4} "$@" > /work/h-restir-target/study/$name.md 2>&1
