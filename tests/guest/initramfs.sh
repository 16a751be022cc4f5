# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/vm: lay out the guest's root file system.

# In-tree modules the guest loads when the kernel has them as modules.
GUEST_MODULES="loop crc32c_generic ext4 overlay fuse"

# Copy a host file to the same path under $1, decompressing .ko.xz.
initramfs_copy() {
	local root=$1 src=$2 dst=${3:-$2}

	[ -e "$root$dst" ] && return 0
	mkdir -p "$root$(dirname "$dst")"
	cp -L "$src" "$root$dst"
}

# initramfs_add ROOT PATH [DEST]: add a file or directory at DEST (PATH
# by default) and, for a dynamic ELF, every shared library it needs and
# the dynamic loader.
initramfs_add() {
	local root=$1 path lib dst=${3:-$2}

	path=$(readlink -f "$2") || die "no such file: $2"
	[ -e "$path" ] || die "no such file: $2"
	if [ -d "$path" ]; then
		mkdir -p "$root$dst"
		cp -a "$path/." "$root$dst/"
		return 0
	fi
	initramfs_copy "$root" "$path" "$dst"
	ldd "$path" >/dev/null 2>&1 || return 0
	for lib in $(ldd "$path" 2>/dev/null |
		     sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
		initramfs_copy "$root" "$lib"
	done
}

# Print the modules.dep entries of module $2 and its dependencies, in the
# order they must be loaded.
module_load_order() {
	local depfile=$1 name=$2 line dep i
	local -a deps

	line=$(grep -E "(^|/)$name\.ko(\.xz)?:" "$depfile") || return 0
	read -r -a deps <<<"${line#*:}"
	for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
		dep=${deps[i]##*/}
		module_load_order "$depfile" "${dep%%.ko*}"
	done
	echo "${line%%:*}"
}

initramfs_add_modules() {
	local root=$1 kdir=$2 release=$3 mdir depfile rel dst

	mdir=$kdir/lib/modules/$release
	depfile=$mdir/modules.dep
	[ -s "$depfile" ] || return 0
	for name in $GUEST_MODULES; do
		module_load_order "$depfile" "$name"
	done | awk '!seen[$0]++' | while read -r rel; do
		dst=/lib/modules/${rel##*/}
		dst=${dst%.xz}
		case $rel in
		*.xz) mkdir -p "$root/lib/modules"; xz -dc "$mdir/$rel" >"$root$dst" ;;
		*)    initramfs_copy "$root" "$mdir/$rel" "$dst" ;;
		esac
		echo "$dst" >>"$root/lib/modules/load-order"
	done
}

# initramfs_build ROOT KDIR RELEASE NAME [bare]: busybox, /init, in-tree
# modules, and fsgate's guest programs unless "bare".
initramfs_build() {
	local root=$1 kdir=$2 release=$3 name=$4 bare=${5:-} bb=/bin/busybox prog

	[ -x "$bb" ] && ! ldd "$bb" >/dev/null 2>&1 ||
		die "$bb is not busybox-static: run 'make deps'"
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,mnt,run,etc,fsgate/bin}
	cp "$bb" "$root/bin/busybox"
	for prog in $("$bb" --list); do
		[ -e "$root/bin/$prog" ] || ln -s busybox "$root/bin/$prog"
	done
	install -m 0755 "$FSGATE_TOP/tests/guest/init" "$root/init"
	echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
	echo "nobody:x:65534:65534:nobody:/nonexistent:/bin/false" >>"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	echo "$name" >"$root/fsgate/kernel"
	initramfs_add_modules "$root" "$kdir" "$release"
	[ "$bare" != bare ] || return 0
	# Test programs and examples; the examples find libfsgate through
	# their rpath, $ORIGIN/../lib.
	for prog in "$FSGATE_TOP"/build/guest/* "$FSGATE_TOP"/build/examples/*; do
		[ -e "$prog" ] || continue
		initramfs_add "$root" "$prog" "/fsgate/bin/${prog##*/}"
	done
	if [ -d "$FSGATE_TOP/build/lib" ]; then
		mkdir -p "$root/fsgate/lib"
		cp -a "$FSGATE_TOP"/build/lib/libfsgate*.so* "$root/fsgate/lib/"
	fi
}
