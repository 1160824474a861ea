# SPDX-License-Identifier: BSD-2-Clause
# monprof — one non-recursive GNU Makefile.
#   make            build libmon (static and shared) and the tools
#   make check      build and run every test; ends with "N passed, N failed"
#   make demo       the main job: profile a real program and print the report
#   make install    PREFIX=/usr/local, DESTDIR honoured
# Set WERROR=1 (CI does) to turn warnings into errors.

.DEFAULT_GOAL := all

PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
PKGCONFIG ?= pkg-config

# The soname's number is the version's major number (0 before 1.0: any
# 0.x may change the ABI).  The build refuses a pair that disagree.
VERSION    := 0.1.0
SOVERSION  := 0
ifneq ($(SOVERSION),$(firstword $(subst ., ,$(VERSION))))
$(error SOVERSION $(SOVERSION) does not agree with VERSION $(VERSION): the soname's number is the major version)
endif

CC      ?= cc
CFLAGS  ?= -O2 -g
# Cross building (the runtime only: libmon, monrun and the runtime's test
# programs; prof is the host's, it reads any machine's files):
#   make ARCH=aarch64 CROSS_COMPILE=aarch64-linux-gnu-
# builds with $(CROSS_COMPILE)gcc and $(CROSS_COMPILE)ar into build-$(ARCH)/
# (B= on the command line wins); make install works the same way.
CROSS_COMPILE ?=
AR      ?= ar
ifneq ($(CROSS_COMPILE),)
CC      := $(CROSS_COMPILE)gcc
AR      := $(CROSS_COMPILE)ar
endif
# The machine the runtime is built for (musl's pattern): its code lives in
# lib/arch/$(ARCH)/ (registers, ucontext access, the PLT and signal
# trampoline rules, the mcount entry in assembly), found first on the
# include path and built with the rest of lib/.  Default: the compiler's
# target (cc -dumpmachine's first field).  A port adds lib/arch/NAME/ with
# arch.h, arch.c and mcount.S (docs/architecture.md).
ARCH    ?= $(firstword $(subst -, ,$(shell $(CC) -dumpmachine 2>/dev/null)))
ifeq ($(ARCH),)
ARCH    := x86_64
endif
ifeq ($(wildcard lib/arch/$(ARCH)/arch.h),)
$(error ARCH=$(ARCH): no lib/arch/$(ARCH)/ (machines: $(notdir $(wildcard lib/arch/*))))
endif
WARN    := -std=gnu11 -Wall -Wextra -Wshadow -Wmissing-prototypes \
           -Wstrict-prototypes -Wpointer-arith -Wformat=2
ifeq ($(WERROR),1)
WARN    += -Werror
endif
CPPFLAGS += -D_GNU_SOURCE
B       := build
ifneq ($(CROSS_COMPILE),)
B       := build-$(ARCH)
endif
# Include paths per layer: the runtime sees its own headers and the format;
# format/ sees the public header; the tools see include/ and format/ only,
# never lib/ (prof adds its own directory).
LIB_INC    := -Iinclude -Ilib -Ilib/arch/$(ARCH) -Iformat
FORMAT_INC := -Iinclude -Iformat
TOOL_INC   := -Iinclude -Iformat

# ---- libmon: the runtime (lib/) and the mon.out writer (format/) ----------
# libmon links the async-signal-safe writer and the checksum, never the
# reader (format/monout_read.c is the tools'; tests/integ/lib_exports.sh),
# and the MONPROF_* settings' rules (shared with monrun).
FORMAT_WRITE_SRC := format/monout_write.c format/crc32.c
FORMAT_READ_SRC  := format/monout_read.c format/syscalls.c
SETTINGS_SRC     := format/settings.c
ARCH_SRC := $(sort $(wildcard lib/arch/$(ARCH)/*.c lib/arch/$(ARCH)/*.S))
LIB_SRC := $(sort $(wildcard lib/*.c) $(FORMAT_WRITE_SRC) $(SETTINGS_SRC)) $(ARCH_SRC)
LIB_PIC := $(patsubst %.S,$(B)/pic/%.o,$(LIB_SRC:%.c=$(B)/pic/%.o))
LIB_OBJ := $(patsubst %.S,$(B)/obj/%.o,$(LIB_SRC:%.c=$(B)/obj/%.o))
LIB_CFLAGS := -fvisibility=hidden -fno-omit-frame-pointer
LIB_LDLIBS := -ldl -lpthread -lrt

SONAME  := libmon.so.$(SOVERSION)
LIBSO   := $(B)/lib/libmon.so.$(VERSION)

$(B)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(LIB_INC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LIB_CFLAGS) -fPIC -MMD -MP -c $< -o $@
$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(LIB_INC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LIB_CFLAGS) -MMD -MP -c $< -o $@
# The machine's assembly (lib/arch/$(ARCH)/*.S, through the C preprocessor).
$(B)/pic/%.o: %.S
	@mkdir -p $(@D)
	$(CC) $(LIB_INC) $(CPPFLAGS) -fPIC -MMD -MP -c $< -o $@
$(B)/obj/%.o: %.S
	@mkdir -p $(@D)
	$(CC) $(LIB_INC) $(CPPFLAGS) -MMD -MP -c $< -o $@
# format/ in libmon sees include/ and format/ only, as in the tools.
$(B)/pic/format/%.o $(B)/obj/format/%.o: LIB_INC := $(FORMAT_INC)

$(B)/lib/libmon.a: $(LIB_OBJ) Makefile
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $(LIB_OBJ)

$(LIBSO): $(LIB_PIC) lib/libmon.map Makefile
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=lib/libmon.map \
	    -Wl,-z,defs -o $@ $(LIB_PIC) $(LDFLAGS) $(LIB_LDLIBS)
	ln -sf libmon.so.$(VERSION) $(B)/lib/$(SONAME)
	ln -sf $(SONAME) $(B)/lib/libmon.so

# ---- tools ----------------------------------------------------------------
# prof reads ELF and DWARF (elfutils), MiniDebugInfo (liblzma) and, when the
# package is there, asks debuginfod servers (elfutils' libdebuginfod); zlib
# gzips --format=pprof; libiberty (no pkg-config module: -liberty) demangles.
HAVE_DEBUGINFOD := $(shell $(PKGCONFIG) --exists libdebuginfod 2>/dev/null && echo 1)
ELF_PKGS   = libelf libdw liblzma zlib capstone $(if $(HAVE_DEBUGINFOD),libdebuginfod)
ELF_CFLAGS = $(shell $(PKGCONFIG) --cflags $(ELF_PKGS) 2>/dev/null) \
             $(if $(HAVE_DEBUGINFOD),-DHAVE_DEBUGINFOD)
ELF_LIBS   = $(shell $(PKGCONFIG) --libs $(ELF_PKGS) 2>/dev/null) -liberty
ifneq ($(CROSS_COMPILE),)
ELF_CFLAGS :=
ELF_LIBS   :=
endif
FORMAT_SRC := $(FORMAT_WRITE_SRC) $(FORMAT_READ_SRC)
FORMAT_OBJ := $(FORMAT_SRC:%.c=$(B)/tool/%.o)
PROF_SRC   := $(sort $(wildcard tools/prof/*.c tools/prof/out/*.c))
PROF_OBJ   := $(PROF_SRC:%.c=$(B)/tool/%.o)
# prof's code but main.c, built once into an internal archive that prof, the
# unit tests and the fuzz harnesses link (never installed).
PROF_LIB_SRC := $(filter-out tools/prof/main.c,$(PROF_SRC))
PROF_LIB_OBJ := $(PROF_LIB_SRC:%.c=$(B)/tool/%.o)
PROF_LIB   := $(B)/tools/libprof.a
MONRUN_SRC := $(sort $(wildcard tools/monrun/*.c))
MONRUN_OBJ := $(MONRUN_SRC:%.c=$(B)/tool/%.o)
TOOLS :=
ifeq ($(CROSS_COMPILE),)
ifneq ($(PROF_SRC),)
TOOLS += $(B)/bin/prof
endif
endif
ifneq ($(MONRUN_SRC),)
TOOLS += $(B)/bin/monrun
endif
# monctl(1): control profiling in a running process (issue 22).
MONCTL_SRC := $(sort $(wildcard tools/monctl/*.c))
ifneq ($(MONCTL_SRC),)
TOOLS += $(B)/bin/monctl
endif

$(B)/tool/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_INC) $(CPPFLAGS) -DMONPROF_VERSION='"$(VERSION)"' $(ELF_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@
$(PROF_OBJ): TOOL_INC += -Itools/prof
# The flame graph's script keeps its own file (tools/prof/out/flame.js),
# built in as the C array flame_js of $(B)/gen/flame_js.h (scripts/embed.sh;
# a script holding "]]>", which would end its CDATA section, is refused).
FLAME_OBJ := $(B)/tool/tools/prof/out/flame.o $(B)/fuzz/obj/tools/prof/out/flame.o
$(B)/gen/flame_js.h: tools/prof/out/flame.js scripts/embed.sh
	@mkdir -p $(@D)
	sh scripts/embed.sh $< flame_js ']]>' >$@.tmp && mv $@.tmp $@
$(FLAME_OBJ): $(B)/gen/flame_js.h
$(FLAME_OBJ): TOOL_INC += -I$(B)/gen
$(PROF_LIB): $(PROF_LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
$(B)/bin/prof: $(B)/tool/tools/prof/main.o $(PROF_LIB) $(FORMAT_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(ELF_LIBS) -lm
$(MONRUN_OBJ): CPPFLAGS += -DMON_LIBDIR='"$(LIBDIR)"' -DMON_SONAME='"$(SONAME)"'
$(B)/bin/monrun: $(MONRUN_OBJ) $(SETTINGS_SRC:%.c=$(B)/tool/%.o)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^
$(B)/bin/monctl: $(MONCTL_SRC:%.c=$(B)/tool/%.o)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^

# ---- tests ----------------------------------------------------------------
CMOCKA_CFLAGS = $(shell $(PKGCONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   = $(shell $(PKGCONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)
UNIT_SRC  := $(sort $(wildcard tests/unit/*.c))
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/unit/%)
PROG_SRC  := $(sort $(wildcard tests/progs/*.c))

# The unit tests link libmon.a and, for the format's tests, the reader.
UNIT_READ_OBJ := $(FORMAT_READ_SRC:%.c=$(B)/tool/%.o)
$(B)/tests/unit/%: tests/unit/%.c $(B)/lib/libmon.a $(UNIT_READ_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LIB_INC) $(CPPFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) $(WARN) -Wno-missing-prototypes -MMD -MP \
	    -o $@ $< $(UNIT_READ_OBJ) $(B)/lib/libmon.a $(CMOCKA_LIBS) $(LIB_LDLIBS)
# prof's unit tests link prof's archive and the format's objects, and see
# what prof sees (include/, format/, tools/prof).
$(B)/tests/unit/test_prof_%: tests/unit/test_prof_%.c $(PROF_LIB) $(FORMAT_OBJ)
	@mkdir -p $(@D)
	$(CC) $(TOOL_INC) -Itools/prof $(CPPFLAGS) $(ELF_CFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) $(WARN) \
	    -Wno-missing-prototypes -MMD -MP -o $@ $< $(PROF_LIB) $(FORMAT_OBJ) $(CMOCKA_LIBS) \
	    $(ELF_LIBS) -lm

# ---- top-level targets ----------------------------------------------------
.PHONY: prof-archive
prof-archive: $(PROF_LIB)
.PHONY: all lib tools check check-build demo deps deps-check install clean bench
all: lib tools
lib: $(B)/lib/libmon.a $(LIBSO) $(B)/lib/mon.pc
tools: $(TOOLS)

$(B)/lib/mon.pc: mon.pc.in Makefile
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCDIR@|$(INCDIR)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

deps:
	@scripts/deps.sh build
deps-check:
	@scripts/deps.sh check

check-build: all $(UNIT_BIN)
check: deps-check
	@$(MAKE) --no-print-directory check-build
	@B=$(B) CC="$(CC)" sh tests/run.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh $(B)

bench: all
	@sh bench/run.sh $(B)

install: all
	install -d $(DESTDIR)$(INCDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
	    $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BINDIR)
	install -m 644 include/mon.h $(DESTDIR)$(INCDIR)/mon.h
	install -m 644 $(B)/lib/libmon.a $(DESTDIR)$(LIBDIR)/libmon.a
	install -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/libmon.so.$(VERSION)
	ln -sf libmon.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libmon.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' mon.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/mon.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/mon.pc
	for m in docs/*.[1-9]; do [ -f "$$m" ] || continue; s=$${m##*.}; \
	    install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	for t in $(TOOLS); do install -m 755 $$t $(DESTDIR)$(BINDIR)/; done

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# ==== robustness (issue 7): fuzzing and sanitizer runs =====================
# Added for docs/reliability.md; the rest of this Makefile does not depend
# on it.
#   make fuzz            build the libFuzzer harnesses (fuzz/fuzz_*.c) with
#                        clang + ASan + UBSan into $(B)/fuzz/, make the seed
#                        corpora (fuzz/make-seeds.sh), replay every seed and
#                        every input of fuzz/regress/NAME/ (each by name),
#                        then run each harness for FUZZ_TIME seconds (default
#                        60; 0: no limit) or FUZZ_RUNS executions (default
#                        -1: no limit), whichever ends first.  New inputs go
#                        to $(B)/fuzz/corpus-NAME/, failures to
#                        $(B)/fuzz/crash-NAME/ (copy them to fuzz/regress/NAME/
#                        once fixed: make check replays that directory).  A
#                        failure ends make fuzz naming the harness and the
#                        input; the last line is "fuzz: N harnesses, M
#                        executions, no failure".  FUZZ_NAMES lists the
#                        harnesses: a new fuzz/fuzz_X.c is one more word.
#   make check-sanitize  the whole suite under ASan+UBSan (build dir
#                        build-asan), then the threaded tests under TSan
#                        (build-tsan); ends with one "N passed, N failed".
FUZZ_CC    ?= clang
FUZZ_TIME  ?= 60
FUZZ_RUNS  ?= -1
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
              -fno-omit-frame-pointer
FUZZ_NAMES := monout gmon symtab cfi
FUZZ_BINS  := $(FUZZ_NAMES:%=$(B)/fuzz/fuzz_%)

FORMAT_ALL_SRC := $(FORMAT_WRITE_SRC) $(FORMAT_READ_SRC)
$(B)/fuzz/fuzz_monout: fuzz/fuzz_monout.c $(FORMAT_ALL_SRC) $(wildcard format/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -D_GNU_SOURCE -Iformat -o $@ fuzz/fuzz_monout.c $(FORMAT_ALL_SRC)
# The CFI compiler with the machine's rules (lib/cfi.c, lib/arch/$(ARCH)/arch.c).
$(B)/fuzz/fuzz_cfi: fuzz/fuzz_cfi.c lib/cfi.c lib/cfi.h lib/arch/$(ARCH)/arch.c lib/arch/$(ARCH)/arch.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -D_GNU_SOURCE -Ilib -Ilib/arch/$(ARCH) -o $@ fuzz/fuzz_cfi.c lib/cfi.c \
	    lib/arch/$(ARCH)/arch.c
# The harnesses of prof's readers link prof's archive, built here once more
# with the fuzzer's instrumentation (the same sources as $(PROF_LIB)).
FUZZ_PROF_OBJ := $(PROF_LIB_SRC:%.c=$(B)/fuzz/obj/%.o)
$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(subst fuzzer,fuzzer-no-link,$(FUZZ_FLAGS)) $(TOOL_INC) -Itools/prof $(CPPFLAGS) \
	    $(ELF_CFLAGS) -DMONPROF_VERSION='"$(VERSION)"' -c $< -o $@
$(B)/fuzz/libprof.a: $(FUZZ_PROF_OBJ)
	rm -f $@ && ar rcs $@ $^
$(B)/fuzz/fuzz_gmon: fuzz/fuzz_gmon.c $(B)/fuzz/libprof.a tools/prof/prof.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -D_GNU_SOURCE -Iformat -Itools/prof $(ELF_CFLAGS) -o $@ fuzz/fuzz_gmon.c \
	    $(B)/fuzz/libprof.a $(ELF_LIBS) -lm
$(B)/fuzz/fuzz_symtab: fuzz/fuzz_symtab.c $(B)/fuzz/libprof.a tools/prof/prof.h $(FORMAT_ALL_SRC)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -D_GNU_SOURCE -Itools/prof -Iformat $(ELF_CFLAGS) -o $@ fuzz/fuzz_symtab.c \
	    $(B)/fuzz/libprof.a $(FORMAT_ALL_SRC) $(ELF_LIBS) -lm

.PHONY: fuzz fuzz-build fuzz-seeds check-sanitize
fuzz-build: $(FUZZ_BINS)
fuzz-seeds: all
	@rm -rf $(B)/fuzz/seeds && sh fuzz/make-seeds.sh $(B)/fuzz/seeds $(B) 2>/dev/null
fuzz: fuzz-build fuzz-seeds
	@FUZZ_B=$(B) FUZZ_TIME=$(FUZZ_TIME) FUZZ_RUNS=$(FUZZ_RUNS) sh fuzz/run.sh $(FUZZ_NAMES)

# nonnull-attribute is left out: <unistd.h> declares profil()'s buffer
# nonnull, but profil(NULL, 0, 0, 0) is how profil(2) turns sampling off.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize=nonnull-attribute \
             -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# verify_asan_link_order=0: monrun preloads build-asan's libmon.so, which
# then comes before libasan.so in the program's libraries.  Harmless here:
# libmon defines none of the functions ASan intercepts but pthread_create,
# whose next definition (RTLD_NEXT) is then ASan's, the right order.
TSAN_TESTS := profil_threads robust_stress
check-sanitize: deps-check
	@$(MAKE) --no-print-directory B=build-asan CC="$(CC) $(SAN_FLAGS)" CFLAGS="-O1 -g" check-build
	@$(MAKE) --no-print-directory B=build-tsan CC="$(CC) -fsanitize=thread" CFLAGS="-O1 -g" check-build
	@B=build-asan CC="$(CC) $(SAN_FLAGS)" \
	    ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:verify_asan_link_order=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    sh tests/run.sh >build-asan/check.out 2>&1; \
	sed '$$d' build-asan/check.out | sed 's/^/asan: /'; \
	a=$$(tail -n 1 build-asan/check.out); echo "asan: $$a"; \
	ap=$$(echo "$$a" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p'); \
	af=$$(echo "$$a" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p'); \
	tp=0; tf=0; mkdir -p build-tsan/tests/log; \
	for t in $(TSAN_TESTS); do \
	    [ -f tests/integ/$$t.sh ] || continue; \
	    B=build-tsan CC="$(CC) -fsanitize=thread" \
	        TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	        $$(command -v timeout >/dev/null && echo timeout -k 10 $${TEST_TIMEOUT:-900}) \
	        $$(env --default-signal true 2>/dev/null && echo env --default-signal) \
	        sh tests/integ/$$t.sh >build-tsan/tests/log/$$t.out 2>&1; rc=$$?; \
	    p=$$(grep -c '^ok ' build-tsan/tests/log/$$t.out); \
	    f=$$(grep -c '^not ok ' build-tsan/tests/log/$$t.out); \
	    case $$rc in 124|137) echo "tsan: FAIL $$t: timed out after $${TEST_TIMEOUT:-900} s (TEST_TIMEOUT)"; \
	        f=$$((f + 1)) ;; esac; \
	    [ $$rc -ne 0 ] && [ $$f -eq 0 ] && f=1; \
	    grep '^not ok ' build-tsan/tests/log/$$t.out | sed "s|^|tsan: FAIL $$t: |"; \
	    echo "tsan: $$t: $$p passed, $$f failed"; \
	    tp=$$((tp + p)); tf=$$((tf + f)); \
	done; \
	echo "$$((($${ap:-0}) + tp)) passed, $$((($${af:-1}) + tf)) failed"; \
	[ "$${af:-1}" -eq 0 ] && [ $$tf -eq 0 ]
