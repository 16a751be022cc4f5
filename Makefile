# SPDX-License-Identifier: GPL-2.0
#
# fsgate: `make demo` and `make check` are all a newcomer needs; see
# README.md. Everything built lands under build/; kernels and their
# build trees live in $(FSGATE_CACHE), outside the repository.

KERNELS ?= 6.1 6.12 debug
FSGATE_CACHE ?= /var/cache/fsgate
export FSGATE_CACHE

CC ?= cc
CFLAGS ?= -O2 -g
WARNINGS := -Wall -Wextra -Werror
USER_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARNINGS) -Iinclude/uapi $(CFLAGS)

B := build
VERSION := 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=
LIB_SONAME := libfsgate.so.0
LIB_CFLAGS := $(USER_CFLAGS) -Ilib/include -fPIC
LIB_SRCS := lib/init.c lib/mark.c
LIB_OBJS := $(patsubst lib/%.c,$(B)/lib/%.o,$(LIB_SRCS))
LIBS := $(B)/lib/$(LIB_SONAME) $(B)/lib/libfsgate.a $(B)/lib/fsgate.pc
EXAMPLES := $(patsubst examples/%.c,$(B)/examples/%,$(wildcard examples/*.c))
# The kselftest harness comes from the cached linux-source tree.
KSFT = $(shell tests/kernels/extract-source)/tools/testing/selftests

HOST_TESTS := $(B)/tests/ktap_test $(B)/tests/libfsgate_init_test
HOST_TOOLS := $(B)/bin/ktap-count
GUEST_TESTS := $(patsubst tests/selftests/%.c,$(B)/guest/%,\
		 $(wildcard tests/selftests/*_test.c))
SCENARIOS := $(patsubst tests/scenarios/%.sh,$(B)/guest/%_scenario_test,\
	       $(wildcard tests/scenarios/*.sh))
GUEST := $(GUEST_TESTS) $(SCENARIOS) $(B)/guest/run-suite $(B)/guest/demo_test

.PHONY: all deps modules userspace guest check style demo install \
	clean help bench bench-report
all: modules userspace

help:
	@echo 'make demo        install, build, boot a guest and show fsgate at work'
	@echo 'make check       the whole test suite (KERNELS="6.1 6.12 debug")'
	@echo 'make deps        install build and test dependencies, prepare kernels'
	@echo 'make modules     build fsgate.ko for each of $$(KERNELS)'
	@echo 'make userspace   build the host tools and the guest test programs'
	@echo 'make style       checkpatch, sparse and W=1 builds'
	@echo 'make install     libfsgate and headers into $$(DESTDIR)$$(PREFIX)'
	@echo 'make bench       benchmarks in QEMU (KERNELS, MODE=reference|wall)'
	@echo 'make bench-report  BENCHMARKS.md from the last make bench'
	@echo 'make clean       remove build/'

deps:
	scripts/deps $(KERNELS)

modules:
	@for k in $(KERNELS); do tests/kernels/build-kmod $$k -s || exit; done

userspace: $(LIBS) $(EXAMPLES) $(HOST_TOOLS) $(HOST_TESTS) guest

$(B)/lib/%.o: lib/%.c lib/include/fsgate.h include/uapi/linux/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(B)/lib/$(LIB_SONAME): $(LIB_OBJS) lib/libfsgate.map
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script=lib/libfsgate.map \
		-o $(B)/lib/libfsgate.so.$(VERSION) $(LIB_OBJS)
	ln -sf libfsgate.so.$(VERSION) $@
	ln -sf $(LIB_SONAME) $(B)/lib/libfsgate.so

$(B)/lib/libfsgate.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

$(B)/lib/fsgate.pc: lib/fsgate.pc.in
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' $< >$@

$(B)/examples/%: examples/%.c $(B)/lib/$(LIB_SONAME)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilib/include -o $@ $< -L$(B)/lib -lfsgate \
		-Wl,-rpath,'$$ORIGIN/../lib'

$(B)/tests/libfsgate_init_test: lib/init_test.c $(LIB_SRCS) lib/include/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilib/include $$(pkg-config --cflags cmocka) -o $@ \
		lib/init_test.c $(LIB_SRCS) $$(pkg-config --libs cmocka) \
		-Wl,--wrap=open,--wrap=ioctl,--wrap=close
guest: $(GUEST)

$(B)/bin/ktap-count: tests/ktap/ktap-count.c tests/ktap/ktap.c tests/ktap/ktap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ tests/ktap/ktap-count.c tests/ktap/ktap.c

$(B)/tests/ktap_test: tests/ktap/ktap_test.c tests/ktap/ktap.c tests/ktap/ktap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $$(pkg-config --cflags cmocka) -o $@ \
		tests/ktap/ktap_test.c tests/ktap/ktap.c $$(pkg-config --libs cmocka)

$(B)/guest/%_test: tests/selftests/%_test.c tests/selftests/fsgate_util.c \
		   tests/selftests/fsgate_util.h $(B)/lib/libfsgate.a
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilib/include -isystem $(KSFT) -o $@ $< \
		tests/selftests/fsgate_util.c $(B)/lib/libfsgate.a -lpthread

$(B)/guest/run-suite: tests/guest/run-suite
	@mkdir -p $(@D)
	install -m 0755 $< $@

# Scenarios: shell scripts that run real programs in the guest, print TAP.
$(B)/guest/%_scenario_test: tests/scenarios/%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

# make demo's scenario, also run by make check so that it cannot rot.
$(B)/guest/demo_test: examples/demo-guest.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

install: $(LIBS)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/linux
	install -m 0755 $(B)/lib/libfsgate.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libfsgate.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(PREFIX)/lib/libfsgate.so
	install -m 0644 $(B)/lib/libfsgate.a $(DESTDIR)$(PREFIX)/lib/
	install -m 0644 $(B)/lib/fsgate.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 0644 lib/include/fsgate.h $(DESTDIR)$(PREFIX)/include/
	install -m 0644 include/uapi/linux/fsgate.h $(DESTDIR)$(PREFIX)/include/linux/

style:
	tests/style $(KERNELS)

check: deps
	@$(MAKE) -s all
	tests/check $(KERNELS)

# The demo needs only the stock 6.1 kernel: no debug kernel build.
demo:
	scripts/deps 6.1
	@$(MAKE) -s all KERNELS=6.1
	examples/demo

# make bench: one boot per stock kernel (the debug kernel measures
# KASAN, not fsgate); MODE=wall for several vCPUs and real time.
BENCH_KERNELS = $(filter-out debug,$(KERNELS))
MODE ?= reference
BENCH_SRCS := $(wildcard bench/*.c)

# Built with the rest so that an ABI change cannot break it unseen.
userspace: $(B)/bench/fsbench

$(B)/bench/fsbench: $(BENCH_SRCS) bench/bench.h $(B)/lib/libfsgate.a \
		     lib/include/fsgate.h include/uapi/linux/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilib/include -o $@ $(BENCH_SRCS) $(B)/lib/libfsgate.a

bench:
	scripts/deps $(BENCH_KERNELS)
	@$(MAKE) -s all KERNELS="$(BENCH_KERNELS)"
	bench/run --mode $(MODE) $(BENCH_KERNELS)

bench-report:
	bench/report --markdown BENCHMARKS.md

clean:
	rm -rf $(B)
