setup() {
  load ../lib/lab
  DIR="$BATS_TEST_TMPDIR/ext"; mkdir -p "$DIR/secrets" "$BATS_TEST_TMPDIR/d"
  echo pw-123 >"$DIR/secrets/password"; echo a2V5OmtleQ== >"$DIR/secrets/api-key"
}
eval "$(sed -n '/^secrets() {/,/^}/p; /^refute_secret_in() {/,/^}/p' "$BATS_TEST_DIRNAME/../live/95-external.bats")"
@test "old check on a missing file: passes (cannot fail)" { run grep -F -f <(secrets) "$BATS_TEST_TMPDIR/missing.env"; assert_failure; }
@test "new check on a missing file: fails" { refute_secret_in "$BATS_TEST_TMPDIR/missing.env"; }
@test "new check on an empty dir: fails" { refute_secret_in "$BATS_TEST_TMPDIR/d"; }
@test "new check on a file holding the key: fails" { echo "x a2V5OmtleQ== y" >"$BATS_TEST_TMPDIR/d/log"; refute_secret_in "$BATS_TEST_TMPDIR/d"; }
@test "new check on a clean file: passes" { echo "ES_URL=https://x" >"$BATS_TEST_TMPDIR/c.env"; refute_secret_in "$BATS_TEST_TMPDIR/c.env"; }
@test "new check with a missing secrets file: fails" { rm "$DIR/secrets/api-key"; echo clean >"$BATS_TEST_TMPDIR/c.env"; refute_secret_in "$BATS_TEST_TMPDIR/c.env"; }
