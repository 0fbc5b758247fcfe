# rknn-trace — plain Makefile. Everything is built into $(BUILD)/.
#   make            build librknnrt.so, the rknn-trace CLI and the test programs
#   make deps       install build and test dependencies (Debian packages, npm oracle)
#   make demo       build and run the main job on a bundled real model
#   make test       all tests, then again under AddressSanitizer + UBSan
#                   (SUITE='PAT...': only the suites whose name has one of the globs)
#   make bench      every benchmark against its target (bench/all.sh)
#   make fuzz       libFuzzer on every parser
#   make tsan       the library and the C API thread tests under ThreadSanitizer (build-tsan/)
#   make install PREFIX=/usr/local

BUILD   ?= build
PREFIX  ?= /usr/local
CC      ?= cc
OPT     ?= -O2
SAN     ?= 0
CFLAGS  ?= $(OPT) -g
PROTO   ?= /usr/include/onnx/onnx.proto

WARN     = -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter
ifeq ($(SAN),1)
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
ifeq ($(SAN),thread)
# The ifunc resolvers of target_clones run before TSan is initialised and crash:
# one plain version of each hot kernel instead.
SANFLAGS = -fsanitize=thread -fno-omit-frame-pointer '-Dtarget_clones(...)=unused'
endif
ALL_CFLAGS = $(WARN) $(CFLAGS) $(SANFLAGS) -fPIC -pthread -D_GNU_SOURCE -I. -Iinclude -I$(BUILD)/gen \
             -I/usr/include/libdrm -I/usr/include/libbson-1.0
LDFLAGS_ALL = $(LDFLAGS) $(SANFLAGS) -pthread
LIBS     = -lprotobuf-c -lopenblas -lpng -ljpeg -ljansson -lyaml -lbson-1.0 -lm
DBLIBS   = -lsqlite3
TUILIBS  = $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo)
# The board probe (tracer/board*.c but the pure parsers) needs libdrm; it stays
# out of librknnrt.so and goes into the CLI, the tests and librknntrace.so.
BOARDLIBS = -ldrm

GEN_C    = $(BUILD)/gen/onnx/onnx.pb-c.c
GEN_H    = $(BUILD)/gen/onnx/onnx.pb-c.h
# The commit this build is made from (runs record it, env_json "build", so that
# compare can say when two predictions come from different builds); rewritten
# only when it changes, so that a build at the same commit rebuilds nothing.
BUILD_ID = $(BUILD)/gen/build_id.h

# Module sources (folders as in DESIGN.md). The runtime core (libcore.a) goes into
# every program, and into librknnrt.so only the objects the C API needs (no log
# parser of tracer/); analyze/ (SQLite) only into the CLI and tests.
BOARD_SRC   = tracer/board.c tracer/board_drm.c
# librknntrace.so, the LD_PRELOAD interposer: its own library, not in the core.
TRACE_SRC   = tracer/interpose.c
CORE_SRC    = $(filter-out $(BOARD_SRC) $(TRACE_SRC),$(wildcard util/*.c runtime/model/*.c runtime/passes/*.c \
                         runtime/exec/*.c runtime/quant/*.c runtime/npu/*.c runtime/emu/*.c dump/*.c \
                         tracer/*.c))
API_SRC     = $(wildcard runtime/api/*.c)
ANALYZE_SRC = $(wildcard analyze/*.c)
# record/ (a source's rows into the store): the CLI and the tests, not librknnrt.so
RECORD_SRC  = $(wildcard record/*.c)
REPORTS_SRC = $(wildcard reports/*.c)
# tune/ (the quantization repair search) is linked with the CLI that runs it
CLI_SRC     = $(wildcard cli/*.c) $(wildcard tune/*.c)
TUI_SRC     = $(wildcard tui/*.c)
UNIT_SRC    = $(wildcard tests/unit/test_*.c)
FUZZ_SRC    = $(wildcard tests/fuzz/fuzz_*.c)
TOOL_SRC    = $(wildcard tests/tools/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
CORE_OBJ    = $(call obj,$(CORE_SRC)) $(BUILD)/obj/gen/onnx.pb-c.o
API_OBJ     = $(call obj,$(API_SRC))
ANALYZE_OBJ = $(call obj,$(ANALYZE_SRC))
RECORD_OBJ  = $(call obj,$(RECORD_SRC))
REPORTS_OBJ = $(call obj,$(REPORTS_SRC))
CLI_OBJ     = $(call obj,$(CLI_SRC))
TUI_OBJ     = $(call obj,$(TUI_SRC))
BOARD_OBJ   = $(call obj,$(BOARD_SRC))

CORE_LIB  = $(BUILD)/libcore.a
UNIT_BIN  = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
FUZZ_BIN  = $(patsubst tests/fuzz/%.c,$(BUILD)/tests/%,$(FUZZ_SRC))
TOOL_BIN  = $(patsubst tests/tools/%.c,$(BUILD)/tests/%,$(TOOL_SRC))

.PHONY: all deps demo test test-fast bench install clean fuzz tsan
all: $(BUILD)/librknnrt.so $(BUILD)/librknntrace.so $(BUILD)/rknn-trace $(UNIT_BIN) $(FUZZ_BIN) $(TOOL_BIN)

$(GEN_C) $(GEN_H): $(PROTO)
	@mkdir -p $(BUILD)/gen
	protoc-c --c_out=$(BUILD)/gen -I$(dir $(PROTO)).. onnx/onnx.proto

$(BUILD)/obj/gen/onnx.pb-c.o: $(GEN_C)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -Werror,$(ALL_CFLAGS)) -c $< -o $@

$(BUILD)/obj/%.o: %.c | $(GEN_H) $(BUILD_ID)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD_ID): FORCE
	@mkdir -p $(dir $@)
	@id=$$(git -C $(CURDIR) rev-parse --short=12 HEAD 2>/dev/null || true); \
	 if [ -n "$$id" ] && ! git -C $(CURDIR) diff --quiet HEAD -- 2>/dev/null; then id=$$id-dirty; fi; \
	 printf '#define RKNN_TRACE_BUILD "%s"\n' "$$id" >$@.tmp; \
	 cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
.PHONY: FORCE
FORCE:

$(CORE_LIB): $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/librknnrt.so: $(API_OBJ) $(CORE_LIB) runtime/api/librknnrt.map
	$(CC) -shared -Wl,-soname,librknnrt.so -Wl,--version-script=runtime/api/librknnrt.map \
	    -o $@ $(API_OBJ) $(CORE_LIB) $(LDFLAGS_ALL) $(filter-out -lopenblas,$(LIBS)) -ldl

# Exports the rknn_* functions only (same version script as the runtime), so that
# the util functions it carries cannot clash with the application's.
TRACE_OBJ = $(call obj,$(TRACE_SRC) util/sha256.c util/util.c)
$(BUILD)/librknntrace.so: $(TRACE_OBJ) runtime/api/librknnrt.map
	$(CC) -shared -Wl,-soname,librknntrace.so -Wl,--version-script=runtime/api/librknnrt.map \
	    -o $@ $(TRACE_OBJ) $(LDFLAGS_ALL) -ldl

# reports/ (exporters), tui/ and the board probe: linked into the CLI only. The CLI
# and librknnrt.so load OpenBLAS on their first BLAS call (runtime/exec/blas_lazy.c),
# not at start.
$(BUILD)/rknn-trace: $(CLI_OBJ) $(REPORTS_OBJ) $(TUI_OBJ) $(RECORD_OBJ) $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB)
	$(CC) -o $@ $(CLI_OBJ) $(REPORTS_OBJ) $(TUI_OBJ) $(RECORD_OBJ) $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) \
	    $(LDFLAGS_ALL) $(filter-out -lopenblas,$(LIBS)) $(DBLIBS) $(TUILIBS) $(BOARDLIBS) $(ZLIB) -ldl

# API tests are applications of the C API: they also link the API layer.
$(BUILD)/tests/test_api_%: tests/unit/test_api_%.c $(API_OBJ) $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(API_OBJ) $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) $(LDFLAGS_ALL) $(LIBS) $(DBLIBS) $(BOARDLIBS)

# the report exporters are the CLI's; their tests take those objects
$(BUILD)/tests/test_report_%: tests/unit/test_report_%.c $(REPORTS_OBJ) $(ANALYZE_OBJ) $(CORE_LIB) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(REPORTS_OBJ) $(ANALYZE_OBJ) $(CORE_LIB) $(LDFLAGS_ALL) $(LIBS) $(DBLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(RECORD_OBJ) $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(RECORD_OBJ) $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) $(LDFLAGS_ALL) $(LIBS) $(DBLIBS) $(BOARDLIBS)

$(BUILD)/tests/%: tests/tools/%.c $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) $(LDFLAGS_ALL) $(LIBS) $(DBLIBS) $(BOARDLIBS)

# Fuzz targets built with a plain main() that replays files (tests/fuzz/replay.c);
# `make fuzz` builds them with clang's libFuzzer instead.
# (and with the CLI's log reader, cli/import_read.c, which inflates gzip with zlib)
FUZZ_CLI_SRC = cli/import_read.c
ZLIB         = -lz
$(BUILD)/tests/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(RECORD_OBJ) $(ANALYZE_OBJ) $(BOARD_OBJ) $(call obj,$(FUZZ_CLI_SRC)) $(CORE_LIB) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< tests/fuzz/replay.c $(RECORD_OBJ) $(ANALYZE_OBJ) $(BOARD_OBJ) $(call obj,$(FUZZ_CLI_SRC)) $(CORE_LIB) $(LDFLAGS_ALL) $(LIBS) $(DBLIBS) $(BOARDLIBS) $(ZLIB)

deps:
	bash scripts/deps.sh

demo: all
	bash scripts/demo.sh

# SUITE: space-separated globs/substrings over the names `bash tests/run.sh --list` prints
SUITE ?=
SUITE_ARGS = $(foreach p,$(SUITE),--only '$(p)')

test: all
	bash tests/run.sh $(SUITE_ARGS)

test-fast: all
	RT_SKIP_ASAN=1 bash tests/run.sh $(SUITE_ARGS)

bench: all
	bash bench/all.sh $(BUILD)

fuzz:
	bash tests/fuzz/run_libfuzzer.sh

# ThreadSanitizer: librknnrt.so and the tests that call the C API from several threads.
# OpenBLAS is not instrumented; the runtime calls it single-threaded, and what TSan
# still reports inside it is listed in tests/tsan.supp.
TSAN_TESTS = test_api_threads test_api_general test_import_stream
tsan:
	$(MAKE) BUILD=build-tsan SAN=thread OPT=-O1 build-tsan/librknnrt.so \
	    $(patsubst %,build-tsan/tests/%,$(TSAN_TESTS))
	bash tests/tsan.sh build-tsan $(TSAN_TESTS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/rknn-trace \
	    $(DESTDIR)$(PREFIX)/include/rknn-trace $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(BUILD)/rknn-trace $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(BUILD)/librknnrt.so $(BUILD)/librknntrace.so $(DESTDIR)$(PREFIX)/lib/rknn-trace/
	install -m 644 include/*.h $(DESTDIR)$(PREFIX)/include/rknn-trace/
	sed -e 's|@PREFIX@|$(PREFIX)|g' scripts/rknn-trace.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/rknn-trace.pc

clean:
	rm -rf $(BUILD) build-asan build-tsan

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Vendor-style sample applications (tests/samples): rknn_api.h is their only header
# and they link the shared library as any application would.
SAMPLE_SRC = $(wildcard tests/samples/*.c)
SAMPLE_BIN = $(patsubst tests/samples/%.c,$(BUILD)/samples/%,$(SAMPLE_SRC))
all: $(SAMPLE_BIN)
$(BUILD)/samples/%: tests/samples/%.c tests/samples/sample_util.h $(wildcard include/*.h) $(BUILD)/librknnrt.so
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude -o $@ $< -L$(BUILD) -lrknnrt \
	    -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS_ALL) -lm

# The zoo benchmark builds its networks from their architectures (tests/tools/zoo);
# zoo_onnx writes them as ONNX files.
ZOO_TOOLS = $(BUILD)/tests/npu_models $(BUILD)/tests/zoo_onnx
$(ZOO_TOOLS): $(BUILD)/tests/%: tests/tools/%.c tests/tools/zoo/graphs.c tests/tools/zoo/graphs.h $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< tests/tools/zoo/graphs.c $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) $(LDFLAGS_ALL) $(LIBS) $(DBLIBS) $(BOARDLIBS)

$(BUILD)/tests/zoo_predict: tests/tools/zoo_predict.c tests/tools/zoo/graphs.c tests/tools/zoo/graphs.h $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< tests/tools/zoo/graphs.c $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) $(LDFLAGS_ALL) $(LIBS) $(DBLIBS) $(BOARDLIBS)

# The per-frame C API timing of bench/run.sh is an application: rknn_api.h only,
# linked against the shared library (this explicit rule wins over the pattern).
$(BUILD)/tests/bench_capi: tests/tools/bench_capi.c include/rknn_api.h $(BUILD)/librknnrt.so
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude -o $@ $< -L$(BUILD) -lrknnrt \
	    -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS_ALL) -lm

# The API benchmark is an application of the C API and of the executor it wraps: it
# also links the API layer (this explicit rule wins over the tests/tools pattern).
$(BUILD)/tests/bench_api: tests/tools/bench_api.c $(API_OBJ) $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(API_OBJ) $(ANALYZE_OBJ) $(BOARD_OBJ) $(CORE_LIB) $(LDFLAGS_ALL) $(LIBS) $(DBLIBS) $(BOARDLIBS)
