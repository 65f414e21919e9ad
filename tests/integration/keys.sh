#!/usr/bin/env bash
# Description: gpufeed keys prints the workload key reference from the key table, and
# docs/workload-keys.md is that output (gpufeed keys --markdown), committed.
# Expected: the committed file equals what this build prints; one section prints only its
# keys with type, default and allowed values; an unknown section exits 2 with a suggestion.
# Buggy: a key added to bench/model/keys.c without regenerating the doc (the test names the
# command that regenerates it), a section filter that leaks other sections.
. "$(dirname "$0")/lib.sh"

doc=$SRCDIR/docs/workload-keys.md
"$GPUFEED" keys --markdown >"$TMP/keys.md" || bad "keys --markdown failed"
if diff -u "$doc" "$TMP/keys.md" >"$TMP/diff"; then
	ok "docs/workload-keys.md is current"
else
	bad "docs/workload-keys.md is stale: regenerate it with  build/gpufeed keys --markdown > docs/workload-keys.md"
	head -20 "$TMP/diff"
fi
rows=$(grep -c '^| `' "$TMP/keys.md")
keys=$("$GPUFEED" keys | grep -c '^[a-z]')
[ "$rows" -eq "$keys" ] && [ "$rows" -gt 100 ] && ok "$rows keys in the reference, each once" ||
	bad "$rows rows in the Markdown reference, $keys keys in gpufeed keys"

"$GPUFEED" keys reader >"$TMP/r" 2>&1 || bad "keys reader failed"
grep -Eq '^reader\.prefetch_size +integer +default 2; allowed 0 \.\. 1e\+06$' "$TMP/r" &&
	ok "keys reader: prefetch_size with type, default and bounds" || { bad "keys reader"; head -5 "$TMP/r"; }
grep -Eq '^reader\.file_shuffle +choice +default off; allowed off, seed, random$' "$TMP/r" &&
	ok "keys reader: allowed values" || bad "keys reader: no allowed values"
grep -Eq '^[a-z_]+\.' "$TMP/r" && ! grep -Eq '^(checkpoint|dataset|train)\.' "$TMP/r" &&
	ok "keys reader: reader keys only" || bad "keys reader prints other sections"
"$GPUFEED" keys storage.storage_options >"$TMP/s" 2>&1 && grep -q '^storage.storage_options ' "$TMP/s" &&
	ok "keys of a map key" || { bad "keys storage.storage_options"; cat "$TMP/s"; }
"$GPUFEED" keys readr >"$TMP/o" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "did you mean 'reader'" "$TMP/o" && ok "unknown section: exit 2, suggestion" ||
	{ bad "unknown section: exit $rc"; cat "$TMP/o"; }
finish
