# SPDX-License-Identifier: GPL-2.0
# Shared by the kernel and guest scripts: where the cache lives and how a
# kernel name ("6.1", "6.12", "debug") maps to what is in it.

FSGATE_CACHE=${FSGATE_CACHE:-/var/cache/fsgate}
FSGATE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FSGATE_KERNELS_ALL="6.1 6.12 debug"

msg() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { msg "$*"; exit 1; }

# Debian metapackage that names the ABI of each stock kernel.
stock_metapackage() {
	case $1 in
	6.1)  echo linux-image-amd64 ;;
	6.12) echo linux-image-6.12-amd64 ;;
	*)    return 1 ;;
	esac
}

# Directory of a prepared kernel in the cache: it holds vmlinuz, release
# (the kernel release string), build (the tree modules build against) and
# lib/modules/<release>/ with the in-tree modules the guest loads.
kernel_dir() {
	local link="$FSGATE_CACHE/kernels/$1"

	[ -e "$link/release" ] || die "kernel '$1' is not prepared: run 'make deps'"
	readlink -f "$link"
}
