# Makefile - builds everything into build/:
#   build/clrprobe        the command
#   build/libclrprobe.so  the in-process agent
#   build/sample/         the bundled C# sample program
#   build/web/            the bundled ASP.NET Core sample
#   build/unit_tests      unit tests of the pure parts
#   build/tests/libstandin_agent.so  a stand-in APM agent the tests load beside ours
# Targets: all (default), demo, check, test, unit, asan, bench, setup, install
# (PREFIX, DESTDIR), uninstall, deb, clean.
#
# CFLAGS (default -O2 -g), CPPFLAGS and LDFLAGS are the user's: they come after
# the project's own flags (PROJECT_CFLAGS: C11, warnings, include path,
# dependency files), which are always used, so `make CC=clang CFLAGS=-O1`
# changes the optimisation and keeps the rest.

CC      ?= gcc
BUILD   := build
WARN    := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes
CFLAGS  ?= -O2 -g
PROJECT_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -Isrc -MMD -MP
# Sanitizer flags for compiling and linking, and for linking the two programs
# (not the agent); set only by `make asan`, which builds into its own directory.
SANITIZE :=
SANITIZE_EXE :=
# The C library the product is built against: build/sysroot, Debian 11's
# (glibc 2.31, made by `make setup`, scripts/sysroot.sh), so that the command
# and the agent run on glibc 2.28 and later; the machine's own without it (a
# build before the set-up) and for `make asan` (the sanitizers' runtimes
# need the machine's).  -B and -L put its start files and libraries before
# the compiler's defaults, which --sysroot alone does not.
SYSROOT := $(if $(SANITIZE),,$(if $(wildcard $(CURDIR)/build/sysroot/.made),$(CURDIR)/build/sysroot))
TRIPLET := x86_64-linux-gnu
SYSROOT_CFLAGS  := $(if $(SYSROOT),--sysroot=$(SYSROOT))
SYSROOT_LDFLAGS := $(if $(SYSROOT),--sysroot=$(SYSROOT) -B$(SYSROOT)/usr/lib/$(TRIPLET) \
                   -L$(SYSROOT)/usr/lib/$(TRIPLET) -L$(SYSROOT)/lib/$(TRIPLET))
ALL_CFLAGS  = $(PROJECT_CFLAGS) $(SYSROOT_CFLAGS) $(SANITIZE) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SYSROOT_LDFLAGS) $(SANITIZE) $(LDFLAGS)
# (-ldl and -lpthread: before glibc 2.34 dlopen and the threads were not in libc)
LDLIBS  := -lz -lpthread -ldl -lm

# Sources by folder, at any depth (a folder's subfolders are part of it),
# each list written once: $(call sources,FOLDER,EXT).
sources = $(shell find $(1) -name '*.$(2)' 2>/dev/null | LC_ALL=C sort)
API_SRC    := src/api/guids.c
COMMON_SRC := $(call sources,src/common,c)
UNWIND_SRC := $(call sources,src/unwind,c)
AGENT_C    := $(call sources,src/agent,c)
IPC_SRC    := $(call sources,src/ipc,c)
REPORT_C   := $(call sources,src/report,c)
# The runtime's own event stream (EventPipe's nettrace) and what reads it.
EVENTPIPE_SRC := $(call sources,src/eventpipe,c)
# `clrprobe serve`: the HTTP server (libmicrohttpd, loaded when serve runs) and what it serves.
SERVE_SRC  := $(call sources,src/serve,c)
# Source lines from portable PDBs (`clrprobe report`): the PE debug directory, the PDB, the search.
SYMBOLS_SRC := $(call sources,src/symbols,c)
# The per-CPU clock the command holds for a process it profiles: per-CPU events and BPF.
CPUCLOCK_SRC := $(call sources,src/cpuclock,c)
CLI_C      := $(call sources,src/cli,c)
# The trace format: the agent writes it, the command reads it (heap_codec.c
# is both sides').
TRACE_WRITE := src/trace/writer.c src/trace/heap_codec.c
TRACE_READ  := src/trace/reader.c src/trace/records.c src/trace/heap_codec.c
# The command's files the unit tests drive (not main.c, nor the subcommands
# that need a running process).
CLI_TESTED := src/cli/run_follow.c src/cli/util.c src/cli/cmd_report.c src/cli/report_many.c src/cli/output.c

# The agent: position independent, only DllGetClassObject exported.
AGENT_SRC := $(AGENT_C) $(UNWIND_SRC) $(API_SRC) $(COMMON_SRC) $(TRACE_WRITE)
# The command.
CLI_SRC   := $(CLI_C) $(CPUCLOCK_SRC) $(SERVE_SRC) $(REPORT_C) $(SYMBOLS_SRC) $(EVENTPIPE_SRC) $(IPC_SRC) $(COMMON_SRC) $(TRACE_READ)
# Unit tests: the pure parts plus the tests themselves (and `clrprobe report`, run on traces made by hand).
UNIT_SRC  := $(call sources,tests/unit,c) $(API_SRC) $(COMMON_SRC) $(sort $(TRACE_WRITE) $(TRACE_READ)) \
             $(AGENT_C) $(UNWIND_SRC) $(REPORT_C) $(SYMBOLS_SRC) $(EVENTPIPE_SRC) $(SERVE_SRC) $(IPC_SRC) $(CPUCLOCK_SRC) \
             $(CLI_TESTED)

# The agent's assembly: the method tracer's enter/leave trampolines.
AGENT_ASM := $(call sources,src/agent,S)
# The command's: the html report's page files (src/report/page/) built in.
REPORT_ASM := $(call sources,src/report,S)
AGENT_OBJ := $(AGENT_SRC:%.c=$(BUILD)/obj/pic/%.o) $(AGENT_ASM:%.S=$(BUILD)/obj/pic/%.o)
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/obj/std/%.o) $(REPORT_ASM:%.S=$(BUILD)/obj/std/%.o)
UNIT_OBJ  := $(UNIT_SRC:%.c=$(BUILD)/obj/std/%.o) $(AGENT_ASM:%.S=$(BUILD)/obj/std/%.o) \
             $(REPORT_ASM:%.S=$(BUILD)/obj/std/%.o)

SAMPLE_SRC := $(wildcard sample/*.cs) sample/Sample.csproj $(wildcard sample/late/*.cs) sample/late/Late.csproj
SAMPLE_DLL := $(BUILD)/sample/Sample.dll
WEB_SRC := $(wildcard sample/web/*.cs) sample/web/Web.csproj
WEB_DLL := $(BUILD)/web/Web.dll

.PHONY: all demo check check-loaded test unit asan bench setup install uninstall deb clean FORCE
all: $(BUILD)/clrprobe $(BUILD)/libclrprobe.so $(SAMPLE_DLL) $(WEB_DLL)

# Everything is built again when the flags change (the sysroot made after a
# first build, another CC or CFLAGS): they are kept in $(BUILD)/flags.
FLAGS_FILE := $(BUILD)/flags
$(FLAGS_FILE): FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(LDLIBS)' | cmp -s - $@ || \
	    echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(LDLIBS)' >$@
FORCE:

# What --version says: the release, the commit it was built from, the C library it needs.
VERSION_H := $(BUILD)/gen/version.h
BUILT_FROM = $(shell git -C $(CURDIR) describe --always --dirty 2>/dev/null || echo 'a source tree')
LIBC_NEEDED = $(if $(SYSROOT),glibc 2.28 or later,glibc $(shell getconf GNU_LIBC_VERSION | cut -d' ' -f2) or later: built without build/sysroot)
$(VERSION_H): FORCE
	@mkdir -p $(dir $@)
	@printf '#define CLRPROBE_BUILT_FROM "%s"\n#define CLRPROBE_LIBC_NEEDED "%s"\n' '$(BUILT_FROM)' '$(LIBC_NEEDED)' | \
	    cmp -s - $@ || printf '#define CLRPROBE_BUILT_FROM "%s"\n#define CLRPROBE_LIBC_NEEDED "%s"\n' \
	    '$(BUILT_FROM)' '$(LIBC_NEEDED)' >$@
$(BUILD)/obj/std/src/cli/main.o: $(VERSION_H)

$(BUILD)/obj/pic/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(BUILD)/obj/pic/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) -fPIC -c $< -o $@

$(BUILD)/obj/std/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

# .incbin's files are no #include: the dependency files do not list them.
$(BUILD)/obj/std/src/report/html_page_files.o: $(wildcard src/report/page/*)

$(BUILD)/obj/std/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit -I$(BUILD)/gen -c $< -o $@

$(BUILD)/libclrprobe.so: $(AGENT_OBJ) $(FLAGS_FILE)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,-z,defs -Wl,--version-script=src/agent/core/exports.map -o $@ \
	    $(filter %.o,$^) $(LDLIBS)

$(BUILD)/clrprobe: $(CLI_OBJ) $(FLAGS_FILE)
	$(CC) $(ALL_LDFLAGS) $(SANITIZE_EXE) -o $@ $(filter %.o,$^) $(LDLIBS)

$(BUILD)/unit_tests: $(UNIT_OBJ) $(FLAGS_FILE)
	$(CC) $(ALL_LDFLAGS) $(SANITIZE_EXE) -o $@ $(filter %.o,$^) $(LDLIBS)

$(SAMPLE_DLL): $(SAMPLE_SRC)
	dotnet build sample/Sample.csproj -c Release -o $(BUILD)/sample --nologo -v q -clp:ErrorsOnly
	@touch $@

# The stand-in APM agent (tests/apm/): a main profiler for the tests to attach beside.
STANDIN := $(BUILD)/tests/libstandin_agent.so
$(STANDIN): tests/apm/standin_agent.c src/api/guids.c src/api/corprof.h src/api/corprof_callbacks.def
	@mkdir -p $(dir $@)
	$(CC) $(PROJECT_CFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -shared -Wl,-z,defs -o $@ \
	    tests/apm/standin_agent.c src/api/guids.c

# A command run under a seccomp filter that refuses perf_event_open, or event
# limits (tests/tools/deny_perf/).
DENY_PERF := $(BUILD)/tests/deny_perf
$(DENY_PERF): tests/tools/deny_perf/deny_perf.c
	@mkdir -p $(dir $@)
	$(CC) $(PROJECT_CFLAGS) $(CFLAGS) -o $@ $<
# What the tests run beside the product.
TEST_TOOLS := $(STANDIN) $(DENY_PERF)

# The ASP.NET Core sample (the request loop of bench/sampling.sh, the SHA-256 endpoint).
$(WEB_DLL): $(WEB_SRC)
	dotnet build sample/web/Web.csproj -c Release -o $(BUILD)/web --nologo -v q -clp:ErrorsOnly
	@touch $@

# The README's first command: set up, build, profile the sample, write a report.
# (all is made by a make started after the set-up: this one decided the
# sysroot before the set-up had made it)
demo: setup
	$(MAKE) all
	./scripts/demo.sh

# The README's second command (and .ci/run): set up, build, run every test.
check: setup
	$(MAKE) all $(BUILD)/unit_tests $(TEST_TOOLS)
	./tests/run.sh

test: all $(BUILD)/unit_tests $(TEST_TOOLS)
	./tests/run.sh

# The whole suite beside a busy process per core (two at least: the load of a
# shared CI machine); the suite must pass so too.
check-loaded: setup
	$(MAKE) all $(BUILD)/unit_tests $(TEST_TOOLS)
	./tests/loaded.sh ./tests/run.sh

unit: $(BUILD)/unit_tests
	./$(BUILD)/unit_tests

# The agent, the command and the unit tests built with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-asan/ (never mixed with build/), then
# the whole suite run against them: tests/run.sh takes the build from
# CLRPROBE_BUILD and gives the .NET processes ASan's runtime by LD_PRELOAD
# (see tests/run.sh and README, "Sanitizers").  gcc's runtimes: the programs
# link them statically (one copy, so UBSan's reports go to the log files too),
# the agent uses the shared libasan the .NET process preloads.  (GCC 12 warns
# wrongly about __atomic_add_fetch on a struct member under ASan: silenced.)
ASAN_BUILD := build-asan
ASAN_CC    := gcc
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -Wno-stringop-overflow
asan: setup
	$(MAKE) all $(TEST_TOOLS)
	$(MAKE) CC=$(ASAN_CC) BUILD=$(ASAN_BUILD) SANITIZE="$(ASAN_FLAGS)" \
	    SANITIZE_EXE="-static-libasan -static-libubsan" \
	    $(ASAN_BUILD)/clrprobe $(ASAN_BUILD)/libclrprobe.so $(ASAN_BUILD)/unit_tests
	CLRPROBE_BUILD=$(ASAN_BUILD) ./tests/run.sh

bench: all
	./bench/run.sh

setup:
	./scripts/setup.sh

# Installed layout: PREFIX/bin/clrprobe finds PREFIX/lib/clrprobe/libclrprobe.so
# (cli_find_agent); DESTDIR stages it (packaging).  The product only, built
# against build/sysroot when the set-up made it.
PREFIX  ?= /usr/local
DESTDIR ?=
DOCS    := README.md $(wildcard docs/*.md)
install: $(BUILD)/clrprobe $(BUILD)/libclrprobe.so
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/clrprobe $(DESTDIR)$(PREFIX)/share/doc/clrprobe
	install -m 0755 $(BUILD)/clrprobe $(DESTDIR)$(PREFIX)/bin/clrprobe
	install -m 0644 $(BUILD)/libclrprobe.so $(DESTDIR)$(PREFIX)/lib/clrprobe/libclrprobe.so
	install -m 0644 $(DOCS) $(DESTDIR)$(PREFIX)/share/doc/clrprobe/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/clrprobe $(DESTDIR)$(PREFIX)/lib/clrprobe/libclrprobe.so
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/clrprobe
	-rmdir $(DESTDIR)$(PREFIX)/lib/clrprobe

# A Debian package, build/clrprobe_VERSION_amd64.deb (scripts/make_deb.sh):
# the installed layout under /usr, built against Debian 11's C library.
deb: setup
	$(MAKE) $(BUILD)/clrprobe $(BUILD)/libclrprobe.so
	./scripts/make_deb.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) sample/bin sample/obj sample/web/bin sample/web/obj

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
