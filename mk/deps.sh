#!/usr/bin/env bash
# deps.sh - checks for what building, testing and the book need, and
# installs what is missing with apt-get when run as root; otherwise it
# prints the command to run. Called by `make run`, `make test`, ...
#
#   mk/deps.sh            check, then install what is missing (as root)
#   mk/deps.sh --check    only print what it would install; install
#                         nothing (exit 1 when something is missing)
#
# CC names the compiler that probes headers and libraries, as in make.
# tests/deps_check.sh runs this with a compiler that fails chosen probes.
set -u
check_only=false
case ${1:-} in
    --check) check_only=true ;;
    '') ;;
    *) echo "usage: mk/deps.sh [--check]" >&2; exit 2 ;;
esac
CC=${CC:-cc}
need=()
has_header() { echo "#include <$1>" | "$CC" -E -x c - >/dev/null 2>&1; }
has_command() { command -v "$1" >/dev/null 2>&1; }
# A header alone can fool the check: Debian's reference BLAS (libblas-dev)
# ships a cblas.h too. So a library counts when a program links with it.
has_library() {
    echo 'int main(void) { return 0; }' |
        "$CC" -x c - -o /dev/null "-l$1" >/dev/null 2>&1
}
# A package, once, however many of its probes failed.
want() {
    local p
    for p in "${need[@]}"; do
        [ "$p" = "$1" ] && return
    done
    need+=("$1")
}

has_command "$CC" || want gcc
has_command make || want make
# Every library mk/flags.mk links (LDLIBS), and cmocka for the tests:
# -lm, -lmvec (the SIMD exp, log, sin...) and -ldl are glibc's.
for lib in m mvec dl; do
    has_library "$lib" || want libc6-dev
done
{ has_header cblas.h && has_library openblas; } || want libopenblas-dev
{ has_header fftw3.h && has_library fftw3; } || want libfftw3-dev
{ has_header zlib.h && has_library z; } || want zlib1g-dev
{ has_header curl/curl.h && has_library curl; } || want libcurl4-openssl-dev
{ has_header openssl/evp.h && has_library crypto; } || want libssl-dev
{ has_header zip.h && has_library zip; } || want libzip-dev
{ has_header png.h && has_library png; } || want libpng-dev
{ has_header jpeglib.h && has_library jpeg; } || want libjpeg-dev
{ has_header cmocka.h && has_library cmocka; } || want libcmocka-dev
# Open MPI, for step 61's data-parallel training: the program opens
# libmpi at run time (no header needed), and mpirun starts its ranks.
has_library mpi || want libopenmpi-dev
has_command pandoc || want pandoc
has_command dot || want graphviz
has_command gnuplot || want gnuplot-nox
has_command valgrind || want valgrind
has_command mpirun || want openmpi-bin

[ ${#need[@]} -eq 0 ] && exit 0

if $check_only; then
    echo "deps: would install ${need[*]}"
    exit 1
elif [ "$(id -u)" = 0 ] && has_command apt-get; then
    echo "deps: installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null &&
        apt-get install -y -qq "${need[@]}" >/dev/null ||
        { echo "deps: apt-get could not install ${need[*]}" >&2; exit 1; }
else
    echo "deps: missing ${need[*]}. Install them with:" >&2
    echo "    sudo apt-get install -y ${need[*]}" >&2
    exit 1
fi
