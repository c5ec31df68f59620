#!/usr/bin/env bash
# deps.sh - checks for what building, testing and the book need, and
# installs what is missing with apt-get when run as root; otherwise it
# prints the command to run. Called by `make run`, `make test`, ...
set -u
need=()
has_header() { echo "#include <$1>" | "${CC:-cc}" -E -x c - >/dev/null 2>&1; }
has_command() { command -v "$1" >/dev/null 2>&1; }
# A header alone can fool the check: Debian's reference BLAS (libblas-dev)
# ships a cblas.h too. So a library counts when a program links with it.
has_library() {
    echo 'int main(void) { return 0; }' |
        "${CC:-cc}" -x c - -o /dev/null "-l$1" >/dev/null 2>&1
}

has_command cc || need+=(gcc)
has_command make || need+=(make)
{ has_header cblas.h && has_library openblas; } || need+=(libopenblas-dev)
{ has_header fftw3.h && has_library fftw3; } || need+=(libfftw3-dev)
{ has_header zlib.h && has_library z; } || need+=(zlib1g-dev)
{ has_header cmocka.h && has_library cmocka; } || need+=(libcmocka-dev)
has_command pandoc || need+=(pandoc)
has_command dot || need+=(graphviz)
has_command gnuplot || need+=(gnuplot-nox)
has_command valgrind || need+=(valgrind)

[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && has_command apt-get; then
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
