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

VERSION    := 0.1.0
SOVERSION  := 1

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=gnu11 -Wall -Wextra -Wshadow -Wmissing-prototypes \
           -Wstrict-prototypes -Wpointer-arith -Wformat=2
ifeq ($(WERROR),1)
WARN    += -Werror
endif
CPPFLAGS += -Iinclude -Ilib -Iformat -D_GNU_SOURCE
B       := build

# ---- libmon: the runtime (lib/) and the mon.out format (format/) ----------
LIB_SRC := $(sort $(wildcard lib/*.c) $(wildcard format/*.c))
LIB_PIC := $(LIB_SRC:%.c=$(B)/pic/%.o)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/obj/%.o)
LIB_CFLAGS := -fvisibility=hidden -fno-omit-frame-pointer
LIB_LDLIBS := -ldl -lpthread -lrt

SONAME  := libmon.so.$(SOVERSION)
LIBSO   := $(B)/lib/libmon.so.$(VERSION)

$(B)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LIB_CFLAGS) -fPIC -MMD -MP -c $< -o $@
$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LIB_CFLAGS) -MMD -MP -c $< -o $@

$(B)/lib/libmon.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIBSO): $(LIB_PIC) lib/libmon.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=lib/libmon.map \
	    -Wl,-z,defs -o $@ $(LIB_PIC) $(LDFLAGS) $(LIB_LDLIBS)
	ln -sf libmon.so.$(VERSION) $(B)/lib/$(SONAME)
	ln -sf $(SONAME) $(B)/lib/libmon.so

# ---- tools ----------------------------------------------------------------
ELF_CFLAGS = $(shell $(PKGCONFIG) --cflags libelf libdw 2>/dev/null)
ELF_LIBS   = $(shell $(PKGCONFIG) --libs libelf libdw 2>/dev/null)
FORMAT_SRC := $(sort $(wildcard format/*.c))
FORMAT_OBJ := $(FORMAT_SRC:%.c=$(B)/tool/%.o)
PROF_SRC   := $(sort $(wildcard tools/prof/*.c))
PROF_OBJ   := $(PROF_SRC:%.c=$(B)/tool/%.o)
MONRUN_SRC := $(sort $(wildcard tools/monrun/*.c))
MONRUN_OBJ := $(MONRUN_SRC:%.c=$(B)/tool/%.o)
TOOLS :=
ifneq ($(PROF_SRC),)
TOOLS += $(B)/bin/prof
endif
ifneq ($(MONRUN_SRC),)
TOOLS += $(B)/bin/monrun
endif

$(B)/tool/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itools/prof $(ELF_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@
$(B)/bin/prof: $(PROF_OBJ) $(FORMAT_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(ELF_LIBS) -lm
$(MONRUN_OBJ): CPPFLAGS += -DMON_LIBDIR='"$(LIBDIR)"'
$(B)/bin/monrun: $(MONRUN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^

# ---- tests ----------------------------------------------------------------
CMOCKA_CFLAGS = $(shell $(PKGCONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   = $(shell $(PKGCONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)
UNIT_SRC  := $(sort $(wildcard tests/unit/*.c))
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/unit/%)
PROG_SRC  := $(sort $(wildcard tests/progs/*.c))

$(B)/tests/unit/%: tests/unit/%.c $(B)/lib/libmon.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) $(WARN) -Wno-missing-prototypes \
	    -o $@ $< $(B)/lib/libmon.a $(CMOCKA_LIBS) $(LIB_LDLIBS)

# ---- top-level targets ----------------------------------------------------
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
	install -d $(DESTDIR)$(INCDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(MANDIR)/man2 \
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
