cd /work/h-restir
for v in "ml-base" "ml-cap5 --temporal-cap 5"; do
  set -- $v; name=$1; shift
  /work/h-restir-target/release/warpath-bench restir many-lights --backend cpu --resolution 192x108 --reference-spp 1024 --frames 36 --history 20 --cache /work/h-restir-target/restir-bench --json /work/h-restir-target/study/$name.json --time-ratio 4 "$@" > /work/h-restir-target/study/$name.md 2>&1
done
echo done
