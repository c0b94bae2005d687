# tests/fuzz/: libFuzzer targets for the trace reader and the chunk decoder
# (docs/fuzzing.md). Built only with `CC=clang ./configure --enable-fuzzing`.
# libFuzzer needs coverage inside the code under test, so the library is
# built once more here with the fuzzer instrumentation and the sanitizers.
EXTRA_DIST += \
	docs/fuzzing.md \
	tests/fuzz/fuzz-trace-reader.c \
	tests/fuzz/make-corpus.sh \
	tests/fuzz/seeds \
	tests/fuzz/corpus \
	tests/fuzz/regress \
	tests/fuzz/t0300-fuzz-corpus.sh

# Every build replays the corpus and the regression inputs (t0300).
check_PROGRAMS += tests/fuzz/run-corpus-reader tests/fuzz/run-corpus-chunk
tests_fuzz_run_corpus_reader_SOURCES = tests/fuzz/run-corpus.c tests/fuzz/fuzz-trace-reader.c
tests_fuzz_run_corpus_reader_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_fuzz_run_corpus_reader_LDADD = $(FSTAP_LIBS)
tests_fuzz_run_corpus_chunk_SOURCES = tests/fuzz/run-corpus.c tests/fuzz/fuzz-trace-reader.c
tests_fuzz_run_corpus_chunk_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) -DFUZZ_CHUNK_DECODE
tests_fuzz_run_corpus_chunk_LDADD = $(FSTAP_LIBS)
UNIT_TESTS += tests/fuzz/t0300-fuzz-corpus.sh
TESTS += tests/fuzz/t0300-fuzz-corpus.sh

if ENABLE_FUZZING
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g

noinst_LIBRARIES += libfstap-fuzz.a
libfstap_fuzz_a_SOURCES = $(libfstap_a_SOURCES)
libfstap_fuzz_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(UNWIND_CFLAGS) \
	-fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_LIBS = libfstap-fuzz.a $(JANSSON_LIBS) $(UNWIND_LIBS)

noinst_PROGRAMS += fuzz-trace-reader fuzz-chunk-decode
fuzz_trace_reader_SOURCES = tests/fuzz/fuzz-trace-reader.c
fuzz_trace_reader_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) -fsanitize=fuzzer $(FUZZ_SAN)
fuzz_trace_reader_LDFLAGS = -fsanitize=fuzzer $(FUZZ_SAN)
fuzz_trace_reader_LDADD = $(FUZZ_LIBS)

fuzz_chunk_decode_SOURCES = tests/fuzz/fuzz-trace-reader.c
fuzz_chunk_decode_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) -DFUZZ_CHUNK_DECODE \
	-fsanitize=fuzzer $(FUZZ_SAN)
fuzz_chunk_decode_LDFLAGS = -fsanitize=fuzzer $(FUZZ_SAN)
fuzz_chunk_decode_LDADD = $(FUZZ_LIBS)
endif
