#!/bin/sh
# t0300: the fuzz targets' corpus and the inputs of every bug the fuzzers
# found, replayed without libFuzzer (in CI also under ASan and UBSan).
. "$(dirname "$0")/../integration/lib.sh"
: "${FSTAP_BUILDDIR:?}"
for target in reader chunk; do
	prog="$FSTAP_BUILDDIR/tests/fuzz/run-corpus-$target"
	if ! "$prog" "$FSTAP_SRCDIR/tests/fuzz/corpus/$target" \
		"$FSTAP_SRCDIR/tests/fuzz/regress/$target" >"$T/out" 2>&1; then
		fail "$target corpus: $(tail -20 "$T/out")"
	fi
done
finish
