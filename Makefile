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
# The kselftest harness comes from the cached linux-source tree.
KSFT = $(shell tests/kernels/extract-source)/tools/testing/selftests

HOST_TESTS := $(B)/tests/ktap_test
HOST_TOOLS := $(B)/bin/ktap-count
GUEST_TESTS := $(patsubst tests/selftests/%.c,$(B)/guest/%,\
		 $(wildcard tests/selftests/*_test.c))
GUEST := $(GUEST_TESTS) $(B)/guest/run-suite

.PHONY: all deps modules userspace guest check check-host style demo \
	clean help
all: modules userspace

help:
	@echo 'make demo        install, build, boot a guest and show fsgate at work'
	@echo 'make check       the whole test suite (KERNELS="6.1 6.12 debug")'
	@echo 'make deps        install build and test dependencies, prepare kernels'
	@echo 'make modules     build fsgate.ko for each of $$(KERNELS)'
	@echo 'make userspace   build the host tools and the guest test programs'
	@echo 'make style       checkpatch, sparse and W=1 builds'
	@echo 'make clean       remove build/'

deps:
	scripts/deps $(KERNELS)

modules:
	@for k in $(KERNELS); do tests/kernels/build-kmod $$k -s || exit; done

userspace: $(HOST_TOOLS) $(HOST_TESTS) guest
guest: $(GUEST)

$(B)/bin/ktap-count: tests/ktap/ktap-count.c tests/ktap/ktap.c tests/ktap/ktap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ tests/ktap/ktap-count.c tests/ktap/ktap.c

$(B)/tests/ktap_test: tests/ktap/ktap_test.c tests/ktap/ktap.c tests/ktap/ktap.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $$(pkg-config --cflags cmocka) -o $@ \
		tests/ktap/ktap_test.c tests/ktap/ktap.c $$(pkg-config --libs cmocka)

$(B)/guest/%_test: tests/selftests/%_test.c tests/selftests/fsgate_util.c \
		   tests/selftests/fsgate_util.h include/uapi/linux/fsgate.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -o $@ $< \
		tests/selftests/fsgate_util.c -lpthread

$(B)/guest/run-suite: tests/guest/run-suite
	@mkdir -p $(@D)
	install -m 0755 $< $@

check-host: $(HOST_TESTS)
	CMOCKA_MESSAGE_OUTPUT=TAP $(B)/tests/ktap_test

style:
	tests/style $(KERNELS)

check: deps
	@$(MAKE) -s all
	tests/check $(KERNELS)

demo: deps
	@$(MAKE) -s all KERNELS=6.1
	tests/demo

clean:
	rm -rf $(B)
