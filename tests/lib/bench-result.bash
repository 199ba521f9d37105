# What the benchmarks' smoke tests share (tests/live/97-bench-smoke.bats,
# tests/own-lab/10-bench-labs.bats): a check of the result a benchmark wrote, never its figures.

# assert_result FILTER...: each jq FILTER is true of RESULT; nums: a non-empty array of numbers
assert_result() {
  local f
  for f in "$@"; do
    jq -e "def nums: type == \"array\" and length > 0 and all(type == \"number\"); $f" "$RESULT" >/dev/null \
      || fail "$RESULT: not true: $f"$'\n'"$(jq -c . "$RESULT" | cut -c1-3000)"
  done
}
