#!/bin/sh
# quickstart.sh: set up a fresh Debian 12 machine (as root), build fstap in
# ./build, and run either the demo or the whole test suite.
#
#   ./quickstart.sh demo   install dependencies, build, run the demo
#   ./quickstart.sh demo-disk   ... run the second demo: the news spool's
#                          order effect on a modeled spinning disk
#   ./quickstart.sh test   install dependencies, build, run `make check`
#
# FSTAP_CONFIGURE_FLAGS adds configure options (CI: --enable-werror).
# FSTAP_NO_APT=1 skips the package installation.
set -eu

cd "$(dirname "$0")"
what=${1:-}
case $what in
demo|demo-disk|test) ;;
*) echo "usage: ./quickstart.sh demo|demo-disk|test" >&2; exit 2 ;;
esac

BUILD_PACKAGES="build-essential autoconf automake libtool pkg-config libfuse3-dev fuse3 \
libjansson-dev libunwind-dev check libssl-dev libopenmpi-dev"
TEST_PACKAGES="python3 jq xfsprogs btrfs-progs fio stress-ng strace attr acl loggedfs git safecat openmpi-bin"

if [ "${FSTAP_NO_APT:-}" != 1 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "quickstart.sh: run as root (it installs packages with apt-get)" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $BUILD_PACKAGES $TEST_PACKAGES
fi

[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi
mkdir -p build
cd build
# shellcheck disable=SC2086
../configure ${FSTAP_CONFIGURE_FLAGS:-}
make -j"$(nproc)"

case $what in
demo)
	sh ../examples/demo.sh ./fstap
	;;
demo-disk)
	sh ../examples/demo-disk.sh ./fstap
	;;
test)
	make -j"$(nproc)" check
	;;
esac
