export WARPATH_KERNEL_CACHE=/tmp/kc OUT=${OUT:-/tmp/out}
W=.gpu/bin/warpath
(cd crates/warpath-cuda && WARPATH_REQUIRE_GPU=1 timeout 200 ../../.gpu/tests/gpu_compaction-* --test-threads=1 2>&1 | tail -5)
bash crates/warpath-cuda/cub/build.sh /tmp/cub_select > $OUT/cub-build.log 2>&1
for st in 2 3 4 6; do
  WARPATH_COMPACTION_BULK_STAGES=$st timeout 100 $W bench compaction --sizes 24,28 --selectivity 10,50,90 --elements u32 --methods lookback-deep,lookback-bulk $( [ $st = 4 ] && echo --cub /tmp/cub_select) > $OUT/bulk-s$st.md 2>$OUT/bulk-s$st.err; echo "stages $st rc $?"; grep "^| u32" $OUT/bulk-s$st.md
done
timeout 100 $W bench compaction --sizes 24 --selectivity 50 --elements elem16,path64 --methods lookback-pipelined,lookback-bulk,ink-collate > $OUT/bulk-wide.md 2>&1; grep "^| [ep]" $OUT/bulk-wide.md
t=$(ls $PWD/.gpu/tests/gpu_compaction-* | head -1)
for tool in memcheck racecheck; do
  (cd crates/warpath-cuda && WARPATH_COMPACTION_MAX_N=1100 WARPATH_REQUIRE_GPU=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $t every_method --test-threads=1 > $OUT/san-$tool.log 2>&1); echo "$tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san-$tool.log | tail -1)"
done
