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
USER_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARNINGS) -Iinclude/uapi -Icommon $(CPPFLAGS) $(CFLAGS)
# The number and verdict parser the LD_PRELOAD layer, fsgate-run and the
# examples share (common/parse.h).
PARSE := common/parse.c common/parse.h

B := build
# The project's one version, also read by kmod/Kbuild (MODULE_VERSION).
VERSION := $(shell cat VERSION 2>/dev/null)
ifeq ($(VERSION),)
$(error no version: the file VERSION is missing or empty)
endif
PREFIX ?= /usr/local
DESTDIR ?=
# Where make install puts things; Debian's packaging (debian/rules) sets
# the multiarch LIBDIR, SYSCONFDIR=/etc and its SYSTEMDUNITDIR.
LIBDIR ?= $(PREFIX)/lib
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share
SYSCONFDIR ?= /etc
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
MODULESLOADDIR ?= $(PREFIX)/lib/modules-load.d
LIB_SONAME := libfsgate.so.0
LIB_CFLAGS := $(USER_CFLAGS) -Ilib/include -fPIC
LIB_SRCS := lib/init.c lib/mark.c lib/event.c lib/respond.c lib/strerror.c \
	lib/describe.c lib/groups.c lib/info.c
LIB_OBJS := $(patsubst lib/%.c,$(B)/lib/%.o,$(LIB_SRCS))
LIBS := $(B)/lib/$(LIB_SONAME) $(B)/lib/libfsgate.a $(B)/lib/fsgate.pc
# libfsgate-fanotify.so, the LD_PRELOAD layer, with libfsgate linked in.
PRELOAD_SRCS := $(filter-out %_test.c,$(wildcard preload/*.c))
PRELOAD_OBJS := $(patsubst preload/%.c,$(B)/preload/%.o,$(PRELOAD_SRCS)) \
		$(B)/common/parse.o
PRELOAD_LIB := $(B)/lib/libfsgate-fanotify.so
# The tools: tools/NAME.c, or tools/NAME/*.c for one of several files,
# each linked with what tools/common/ holds (log, configuration). They
# load libsystemd (libsystemd-dev's headers) only to log to the journal.
PROGRAMS := fsgate-monitor fsgate-scan fsgate-hsm fsgatectl fsgate-check
TOOLS := $(B)/bin/fsgate-run $(addprefix $(B)/bin/,$(PROGRAMS))
SYSCONFDIR ?= /etc
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
# Each example is one program; daemon.c holds what the daemons share.
EXAMPLE_HELPERS := examples/daemon.c common/parse.c
EXAMPLES := $(patsubst examples/%.c,$(B)/examples/%,\
	    $(filter-out $(EXAMPLE_HELPERS),$(wildcard examples/*.c)))
# Measurements run by hand in a guest (see README, "Limitations").
MEASURES := $(patsubst tests/measure/%.c,$(B)/measure/%,$(wildcard tests/measure/*.c))
# The kselftest harness comes from the cached linux-source tree.
KSFT = $(shell tests/kernels/extract-source)/tools/testing/selftests

HOST_TESTS := $(B)/tests/ktap_test $(B)/tests/header_cxx_test \
	$(patsubst lib/%_test.c,$(B)/tests/libfsgate_%_test,$(wildcard lib/*_test.c)) \
	$(patsubst preload/%_test.c,$(B)/tests/preload_%_test,$(wildcard preload/*_test.c)) \
	$(patsubst common/%_test.c,$(B)/tests/common_%_test,$(wildcard common/*_test.c)) \
	$(patsubst tools/common/%_test.c,$(B)/tests/tools_%_test,$(wildcard tools/common/*_test.c))
HOST_TOOLS := $(B)/bin/ktap-count
GUEST_TESTS := $(patsubst tests/selftests/%.c,$(B)/guest/%,\
		 $(wildcard tests/selftests/*_test.c))
SCENARIOS := $(patsubst tests/scenarios/%.sh,$(B)/guest/%_scenario_test,\
	       $(wildcard tests/scenarios/*.sh))
# Real programs the scenarios run (scripts/deps installs them: fatrace,
# clamav-daemon, inotify-tools) go into the guest when the host has them;
# tests/vm copies the libraries they link with. A missing one is named
# when the guest programs are made; its scenario is then a skip, or a
# failure in CI and once make deps ran (see tests/check).
GUEST_PROGS := fatrace clamd clamonacc inotifywait
GUEST_PROG_DIRS ?= /usr/sbin /usr/bin
guest_prog = $(firstword $(wildcard $(addsuffix /$(1),$(GUEST_PROG_DIRS))))
GUEST_PROGS_MISSING := $(strip $(foreach p,$(GUEST_PROGS),$(if $(call guest_prog,$(p)),,$(p))))
GUEST := $(GUEST_TESTS) $(SCENARIOS) $(B)/guest/scenario-tap.sh \
	 $(B)/guest/run-suite $(B)/guest/demo_test \
	 $(B)/guest/fsgate-run $(addprefix $(B)/guest/,$(PROGRAMS)) \
	 $(B)/guest/fsgate-rules $(B)/guest/stallfs $(B)/guest/opentime \
	 $(foreach p,$(GUEST_PROGS),$(if $(call guest_prog,$(p)),$(B)/guest/$(p)))

.PHONY: all deps modules userspace guest check style demo install \
	clean help bench bench-report progs module module-install dkms-install modules-load-install deb \
	deb-module system-test
all: modules userspace

help:
	@echo 'make demo        install, build, boot a guest and show fsgate at work'
	@echo 'make check       the whole test suite (KERNELS="6.1 6.12 debug")'
	@echo 'make deps        install build and test dependencies, prepare kernels'
	@echo 'make modules     build fsgate.ko for each of $$(KERNELS)'
	@echo 'make userspace   build the host tools and the guest test programs'
	@echo 'make patched-kernel  6.12 (KERNEL=6.1) with the fanotify-priority series'
	@echo 'make style       checkpatch, sparse and W=1 builds'
	@echo 'make install     libfsgate, headers, the fanotify layer, the tools,'
	@echo '                 man pages, completions and units into $$(DESTDIR)$$(PREFIX)'
	@echo 'make module      fsgate.ko for this host (KVER=<release> or KDIR=<build dir>)'
	@echo 'make module-install  into /lib/modules/<release>/updates, then depmod'
	@echo 'make dkms-install    the DKMS source tree into /usr/src/fsgate-<version>'
	@echo 'make deb         the Debian packages into build/deb/, checked with lintian'
	@echo 'make deb-module  fsgate-modules-<release>: fsgate.ko prebuilt for one kernel'
	@echo '                 (KVER= or KDIR= as for make module), into build/deb/'
	@echo 'make system-test make check with the Debian system test also run with DKMS'
	@echo '                 building the module in the guest (slow: ~30 min a kernel)'
	@echo 'make bench       benchmarks in QEMU (KERNELS, MODE=reference|wall)'
	@echo 'make bench-report  BENCHMARKS.md from the last make bench'
	@echo 'make clean       remove build/'

deps:
	scripts/deps $(KERNELS)

modules:
	@for k in $(KERNELS); do tests/kernels/build-kmod $$k -s || exit; done

userspace: $(LIBS) $(PRELOAD_LIB) $(TOOLS) $(EXAMPLES) $(MEASURES) $(HOST_TOOLS) \
	$(HOST_TESTS) guest

$(B)/lib/%.o: lib/%.c lib/include/fsgate.h include/uapi/linux/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(B)/lib/$(LIB_SONAME): $(LIB_OBJS) lib/libfsgate.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script=lib/libfsgate.map \
		-o $(B)/lib/libfsgate.so.$(VERSION) $(LIB_OBJS)
	ln -sf libfsgate.so.$(VERSION) $@
	ln -sf $(LIB_SONAME) $(B)/lib/libfsgate.so

$(B)/lib/libfsgate.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

# Made again by make install, since PREFIX may differ from the build's.
PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' lib/fsgate.pc.in
$(B)/lib/fsgate.pc: lib/fsgate.pc.in
	$(PC_SED) >$@

$(B)/examples/%: examples/%.c $(EXAMPLE_HELPERS) examples/daemon.h common/parse.h \
		 $(B)/lib/$(LIB_SONAME)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilib/include -DVERSION='"$(VERSION)"' -o $@ $< \
		$(EXAMPLE_HELPERS) -L$(B)/lib -lfsgate -Wl,-rpath,'$$ORIGIN/../lib'

$(B)/measure/%: tests/measure/%.c $(B)/lib/libfsgate.a
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilib/include -o $@ $< $(B)/lib/libfsgate.a

# Host unit tests of libfsgate: lib/X_test.c with lib/X.c, and the
# syscalls X makes wrapped at link time (WRAP_X) so that cmocka fakes them.
WRAP_init := open ioctl close
WRAP_respond := write
WRAP_event := read close
WRAP_groups := open ioctl close fopen
comma := ,
$(B)/tests/libfsgate_%_test: lib/%_test.c lib/%.c lib/include/fsgate.h \
			     include/uapi/linux/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilib/include -DVERSION='"$(VERSION)"' \
		$$(pkg-config --cflags cmocka) -o $@ \
		lib/$*_test.c lib/$*.c $$(pkg-config --libs cmocka) \
		$(foreach w,$(WRAP_$*),-Wl$(comma)--wrap=$(w))

$(B)/preload/%.o: preload/%.c preload/preload.h lib/include/fsgate.h \
		 include/uapi/linux/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(B)/common/%.o: common/%.c $(PARSE) include/uapi/linux/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(PRELOAD_LIB): $(PRELOAD_OBJS) $(LIB_OBJS) preload/libfsgate-fanotify.map
	$(CC) $(LDFLAGS) -shared -Wl,--version-script=preload/libfsgate-fanotify.map \
		-Wl,--no-undefined -o $@ $(PRELOAD_OBJS) $(LIB_OBJS) -ldl

# Host unit tests of the layer: preload/X_test.c with the files named in
# PRELOAD_TEST_X; the test fakes what those files call.
PRELOAD_TEST_env := preload/env.c common/parse.c lib/describe.c
PRELOAD_TEST_fanotify := preload/fanotify.c preload/flags.c preload/env.c \
			 common/parse.c lib/describe.c
PRELOAD_TEST_syscall := preload/syscall.c
PRELOAD_TEST_pidfd := preload/pidfd.c
PRELOAD_TEST_process := preload/process.c
PRELOAD_TEST_read := preload/read.c preload/pidfd.c
WRAP_preload_fanotify := access
WRAP_preload_process := syscall open
$(B)/tests/preload_%_test: preload/%_test.c $(PRELOAD_SRCS) preload/preload.h $(PARSE) \
			  lib/include/fsgate.h include/uapi/linux/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilib/include $$(pkg-config --cflags cmocka) -o $@ \
		preload/$*_test.c $(PRELOAD_TEST_$*) $$(pkg-config --libs cmocka) \
		$(foreach w,$(WRAP_preload_$*),-Wl$(comma)--wrap=$(w))

# fsgate-run finds the layer at ../lib/ from where it lies, in build/ as
# installed; the guest gets a copy beside its test programs.
$(B)/bin/fsgate-run: tools/fsgate-run.c preload/env.c preload/preload.h $(PARSE) \
		     lib/describe.c lib/include/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilib/include -DVERSION='"$(VERSION)"' $(LDFLAGS) -o $@ \
		tools/fsgate-run.c preload/env.c common/parse.c lib/describe.c

$(addprefix $(B)/guest/,fsgate-run $(PROGRAMS)): $(B)/guest/%: $(B)/bin/%
	@mkdir -p $(@D)
	install -m 0755 $< $@

# The rules fsgate-scan ships, for its scenario.
$(B)/guest/fsgate-rules: $(wildcard etc/fsgate/rules/*.yar)
	@mkdir -p $@
	install -m 0644 $^ $@/
	@touch $@

TOOLS_COMMON := $(filter-out %_test.c,$(wildcard tools/common/*.c))
TOOL_SRCS = $(or $(wildcard tools/$(1)/*.c),tools/$(1).c)
# Libraries a tool needs beyond libfsgate and libsystemd.
TOOL_LIBS_fsgate-monitor :=
TOOL_LIBS_fsgate-scan := -lyara -lpthread
TOOL_LIBS_fsgate-hsm := -lcrypto
define tool_rule
$(B)/bin/$(1): $(call TOOL_SRCS,$(1)) $(TOOLS_COMMON) $(wildcard tools/common/*.h) $(PARSE) \
	       $(wildcard tools/$(1)/*.h) lib/include/fsgate.h \
	       include/uapi/linux/fsgate.h $(B)/lib/$(LIB_SONAME)
	@mkdir -p $$(@D)
	$$(CC) $$(USER_CFLAGS) -Ilib/include -Itools -DVERSION='"$$(VERSION)"' \
		-DSYSCONFDIR='"$$(SYSCONFDIR)"' -o $$@ $(call TOOL_SRCS,$(1)) \
		$$(TOOLS_COMMON) common/parse.c -L$$(B)/lib -lfsgate $$(TOOL_LIBS_$(1)) -ldl \
		-Wl,-rpath,'$$$$ORIGIN/../lib'
endef
$(foreach t,$(PROGRAMS),$(eval $(call tool_rule,$(t))))

# libclamav's one dlopen, of libclamunrar_iface, finds nothing in Debian
# (RAR support is in non-free) and clamd does without it.
define guest_prog_rule
$(B)/guest/$(1): $(call guest_prog,$(1))
	@mkdir -p $$(@D)
	install -m 0755 $$< $$@
endef
$(foreach p,$(GUEST_PROGS),$(if $(call guest_prog,$(p)),\
	$(eval $(call guest_prog_rule,$(p)))))

guest: $(GUEST)
ifneq ($(GUEST_PROGS_MISSING),)
	@echo "warning: not installed, so not in the guest:" \
		"$(GUEST_PROGS_MISSING) (make deps installs them); their" \
		"scenarios skip, or fail in CI and after make deps" >&2
endif

$(B)/bin/ktap-count: tests/ktap/ktap-count.c tests/ktap/ktap.c tests/ktap/ktap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ tests/ktap/ktap-count.c tests/ktap/ktap.c

# Host unit tests of common/X.c: common/X_test.c.
$(B)/tests/common_%_test: common/%_test.c common/%.c common/%.h \
			  include/uapi/linux/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $$(pkg-config --cflags cmocka) -o $@ \
		common/$*_test.c common/$*.c $$(pkg-config --libs cmocka)

# Host unit tests of tools/common/X.c: tools/common/X_test.c, with
# what X.c calls of the tools' shared code and of libfsgate (TOOLS_TEST_X).
TOOLS_TEST_report := tools/common/json.c lib/describe.c
TOOLS_TEST_modconf := tools/common/replace.c
TOOLS_TEST_watchdog := tools/common/log.c
TOOLS_TEST_why := tools/common/json.c lib/describe.c
$(B)/tests/tools_%_test: tools/common/%_test.c tools/common/%.c tools/common/%.h \
			 lib/include/fsgate.h include/uapi/linux/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilib/include $$(pkg-config --cflags cmocka) -o $@ \
		tools/common/$*_test.c tools/common/$*.c $(TOOLS_TEST_$*) \
		$$(pkg-config --libs cmocka) -ldl

$(B)/tests/ktap_test: tests/ktap/ktap_test.c tests/ktap/ktap.c tests/ktap/ktap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $$(pkg-config --cflags cmocka) -o $@ \
		tests/ktap/ktap_test.c tests/ktap/ktap.c $$(pkg-config --libs cmocka)

# The public headers in a C++ program.
$(B)/tests/header_cxx_test: tests/lib/header_cxx_test.cc lib/include/fsgate.h \
			    include/uapi/linux/fsgate.h
	@mkdir -p $(@D)
	$(CXX) -std=c++11 -Wall -Wextra -Werror -Iinclude/uapi -Ilib/include \
		$$(pkg-config --cflags cmocka) -o $@ $< $$(pkg-config --libs cmocka)

# Helpers every guest selftest links with.
SELFTEST_UTIL := $(wildcard tests/selftests/*_util.c)
$(B)/guest/%_test: tests/selftests/%_test.c $(SELFTEST_UTIL) \
		   $(SELFTEST_UTIL:.c=.h) $(B)/lib/libfsgate.a
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilib/include -isystem $(KSFT) -o $@ $< \
		$(SELFTEST_UTIL) $(B)/lib/libfsgate.a -lpthread

# fsgate's allocation sites, each of which a failnth_test sweep must reach.
ALLOC_SITE_SRC := $(filter-out %_test.c kmod/kunit.c,$(wildcard kmod/*.c))
$(B)/gen/alloc_sites.h: tests/selftests/alloc-sites $(ALLOC_SITE_SRC)
	@mkdir -p $(@D)
	tests/selftests/alloc-sites kmod > $@.tmp
	mv $@.tmp $@
$(B)/guest/failnth_test: $(B)/gen/alloc_sites.h
$(B)/guest/failnth_test: USER_CFLAGS += -I$(B)/gen

# A FUSE server that never answers an open (libfuse3, from make deps).
$(B)/guest/stallfs: tests/selftests/stallfs.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $$(pkg-config --cflags fuse3) -o $@ $< \
		$$(pkg-config --libs fuse3)

# How long each open of a list of files takes (the hsm scenario).
$(B)/guest/opentime: tests/selftests/opentime.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $<

$(B)/guest/run-suite: tests/guest/run-suite
	@mkdir -p $(@D)
	install -m 0755 $< $@

# Scenarios: shell scripts that run real programs in the guest, print TAP.
$(B)/guest/scenario-tap.sh: tests/scenarios/lib/tap.sh
	@mkdir -p $(@D)
	install -m 0644 $< $@

$(B)/guest/%_scenario_test: tests/scenarios/%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

# make demo's scenario, also run by make check so that it cannot rot.
$(B)/guest/demo_test: examples/demo-guest.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

# What make install installs, built.
progs: $(LIBS) $(PRELOAD_LIB) $(TOOLS)

# fsgate-run finds the layer in ../lib from its bin/, so both go under
# one PREFIX (libfsgate itself may go to a multiarch LIBDIR); the pages
# hold .so aliases for every function. Man pages, bash completions
# (completion/PROGRAM), configuration (etc/fsgate/) and systemd units
# (systemd/) are taken as they are found. The drop-ins that run other
# packages' fanotify daemons on fsgate (systemd/UNIT.d/) go to
# DATADIR/fsgate/systemd/, for the administrator to enable: installing
# fsgate must not change how another package's daemon runs.
install: progs
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/lib \
		$(DESTDIR)$(PREFIX)/include/linux $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(B)/lib/libfsgate.so.$(VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libfsgate.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libfsgate.so
	install -m 0644 $(B)/lib/libfsgate.a $(DESTDIR)$(LIBDIR)/
	$(PC_SED) >$(DESTDIR)$(LIBDIR)/pkgconfig/fsgate.pc
	chmod 0644 $(DESTDIR)$(LIBDIR)/pkgconfig/fsgate.pc
	install -m 0644 lib/include/fsgate.h $(DESTDIR)$(PREFIX)/include/
	install -m 0644 include/uapi/linux/fsgate.h $(DESTDIR)$(PREFIX)/include/linux/
	install -m 0644 $(PRELOAD_LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 0755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin/
	for f in man/*.[1-8]; do \
		install -D -m 0644 $$f $(DESTDIR)$(MANDIR)/man$${f##*.}/$${f##*/} || exit; \
	done
	for f in completion/*; do \
		[ ! -f $$f ] || install -D -m 0644 $$f \
			$(DESTDIR)$(DATADIR)/bash-completion/completions/$${f##*/} || exit; \
	done
	for f in $$(find etc/fsgate -type f); do \
		install -D -m 0644 $$f $(DESTDIR)$(SYSCONFDIR)/$${f#etc/} || exit; \
	done
	for f in systemd/*.service systemd/*.socket systemd/*.timer systemd/*.path; do \
		[ ! -f $$f ] || { install -d $(DESTDIR)$(SYSTEMDUNITDIR) && \
		sed -e 's|@BINDIR@|$(PREFIX)/bin|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
			$$f >$(DESTDIR)$(SYSTEMDUNITDIR)/$${f##*/} && \
		chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$${f##*/}; } || exit; \
	done
	for f in systemd/*.d/*.conf; do \
		[ ! -f $$f ] || install -D -m 0644 $$f $(DESTDIR)$(DATADIR)/fsgate/$$f || exit; \
	done

# fsgate.ko for a host: against the running kernel's build tree, or the
# one of KVER=<release>, or KDIR=<build dir>. It builds in a copy of the
# module's sources under build/module/<release>/, laid out as the DKMS
# source tree (kmod/, include/uapi/, VERSION), so that kmod/ stays clean.
# The KUnit suites are not copied: they never reach an installed module.
ifdef KDIR
# The release the tree was built as (Debian's 6.1 headers have a bare
# upstream version in include/config/kernel.release).
KVER ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
else
KVER ?= $(shell uname -r)
KDIR := /lib/modules/$(KVER)/build
endif
MOD_SRC := $(filter-out %_test.c kmod/kunit.c,$(wildcard kmod/*)) \
	   include/uapi/linux/fsgate.h $(wildcard VERSION)
MOD_DIR := $(B)/module/$(KVER)
# Secure Boot: MODSIGN_KEY and MODSIGN_CERT (an enrolled MOK) sign the
# installed module with the kernel's sign-file.
MODSIGN_HASH ?= sha256

$(MOD_DIR)/%: %
	@mkdir -p $(@D)
	install -m 0644 $< $@

module: $(addprefix $(MOD_DIR)/,$(MOD_SRC))
	@[ -n "$(KVER)" ] && [ -f $(KDIR)/Makefile ] || { echo \
		"make module: no kernel build tree at '$(KDIR)' (install linux-headers-$(KVER), or set KVER= or KDIR=)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(MOD_DIR)/kmod modules
	@echo "$(MOD_DIR)/kmod/fsgate.ko is built for $(KVER)"

module-install: module
	install -D -m 0644 $(MOD_DIR)/kmod/fsgate.ko \
		$(DESTDIR)/lib/modules/$(KVER)/updates/fsgate.ko
	$(if $(MODSIGN_KEY),$(KDIR)/scripts/sign-file $(MODSIGN_HASH) $(MODSIGN_KEY) \
		$(MODSIGN_CERT) $(DESTDIR)/lib/modules/$(KVER)/updates/fsgate.ko)
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

# The DKMS source tree, /usr/src/fsgate-VERSION, and the modules-load.d
# entry that loads the module at boot; then dkms add/build/install
# fsgate/VERSION builds it for every installed kernel and again for each
# new one.
DKMS_DIR = $(DESTDIR)/usr/src/fsgate-$(VERSION)
dkms-install: modules-load-install
	for f in $(MOD_SRC); do install -D -m 0644 $$f $(DKMS_DIR)/$$f || exit; done
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf >$(DKMS_DIR)/dkms.conf
	chmod 0644 $(DKMS_DIR)/dkms.conf

# The modules-load.d entry alone: fsgate-dkms and each fsgate-modules
# package ship it (they conflict, so one of them has it).
modules-load-install:
	install -d $(DESTDIR)$(MODULESLOADDIR)
	printf '# fsgate: file access gate (see fsgate(7))\nfsgate\n' \
		>$(DESTDIR)$(MODULESLOADDIR)/fsgate.conf
	chmod 0644 $(DESTDIR)$(MODULESLOADDIR)/fsgate.conf

# Debian packages into build/deb/: fsgate-dkms, libfsgate0, libfsgate-dev,
# fsgate (see debian/), checked with lintian.
deb:
	tests/debian/build-deb build/deb

# fsgate-modules-<release> into build/deb/: fsgate.ko built for one
# kernel (the running one, KVER=<release> or KDIR=<build dir>) with the
# modules-load.d entry, an alternative to fsgate-dkms for hosts that
# should not compile (debian/prebuilt/).
deb-module:
	tests/debian/build-deb --module $(KDIR) build/deb

style:
	tests/style $(KERNELS)

check: deps
	@$(MAKE) -s all patched-kernels
	tests/check $(KERNELS)

# make check with the Debian system test run a second time the way a
# host with fsgate-dkms does it: DKMS builds the module in the guest at
# install and at upgrade, about 30 min per stock kernel under TCG, which
# CI's budget does not hold (tests/debian/system-test --dkms; make check
# runs the system test with the prebuilt module package only, and counts
# this one as a skip).
system-test: deps
	@$(MAKE) -s all
	FSGATE_SYSTEM_TEST_DKMS=1 tests/check $(KERNELS)

# The fanotify-priority series (patches/fanotify-priority/, see README):
# Debian's linux-source-$(KERNEL) with the series applied, each patch
# compiled on its own, then built with tests/kernels/patched.config;
# cached under $(FSGATE_CACHE)/patched/ by the series' hash.
# tests/check boots each of $(PATCHED_KERNELS) with no module and runs
# tests/native/ there.
KERNEL ?= 6.12
PATCHED_KERNELS ?= 6.12 6.1
export PATCHED_KERNELS
.PHONY: patched-kernel patched-kernels native
patched-kernel:
	tests/kernels/build-patched $(KERNEL)

patched-kernels:
	for k in $(PATCHED_KERNELS); do tests/kernels/build-patched $$k || exit; done

# The tests those kernels run natively: plain fanotify, no module.
NATIVE_TESTS := $(patsubst tests/native/%.c,$(B)/native/%,$(wildcard tests/native/*_test.c))
userspace: $(NATIVE_TESTS)
native: $(NATIVE_TESTS)

$(B)/native/%_test: tests/native/%_test.c tests/native/native_util.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -o $@ $<

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
	$(CC) $(USER_CFLAGS) -Ilib/include -o $@ $(BENCH_SRCS) $(B)/lib/libfsgate.a -lpthread

bench:
	scripts/deps $(BENCH_KERNELS)
	@$(MAKE) -s all KERNELS="$(BENCH_KERNELS)"
	bench/run --mode $(MODE) $(BENCH_KERNELS)

bench-report:
	bench/report --markdown BENCHMARKS.md

clean:
	rm -rf $(B)

# --- The fuzzer (tests/fuzz/) and fault injection: make fuzz. ---
# fsgate-fuzz goes into the guest beside the test programs (not a
# *_test, so run-suite leaves it to tests/check's fuzz part).
FUZZ_SRCS := $(wildcard tests/fuzz/*.c)
DURATION ?= 1800
FUZZ_KERNEL ?= debug
# GUEST was expanded into the rules above already: name it to them.
guest userspace: $(B)/guest/fsgate-fuzz

$(B)/guest/fsgate-fuzz: $(FUZZ_SRCS) tests/fuzz/fuzz.h $(B)/lib/libfsgate.a \
			lib/include/fsgate.h include/uapi/linux/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilib/include -o $@ $(FUZZ_SRCS) $(B)/lib/libfsgate.a -lpthread

.PHONY: fuzz
fuzz:
	@$(MAKE) -s all KERNELS=$(FUZZ_KERNEL)
	tests/fuzz/run --kernel $(FUZZ_KERNEL) --duration $(DURATION) $(if $(SEED),--seed $(SEED))
