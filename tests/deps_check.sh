#!/usr/bin/env bash
# deps_check.sh - tests mk/deps.sh's detection without a fresh machine:
# deps.sh runs in --check mode (it installs nothing) with a stand-in
# compiler that fails the probes a test chooses, and a PATH holding only
# stand-ins for the commands it looks for. Each missing piece must name
# its Debian package; nothing missing must name nothing.
#
#   tests/deps_check.sh
#
# The report is cmocka's format, which tests/run.sh adds up.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The stand-in compiler: it fails when one of its arguments, or the
# header that a header probe's #include (read on stdin) names, is an
# entry of FAIL_PROBES (a space-separated list, e.g. "-lopenblas
# fftw3.h"). Whole words: failing -lz must not fail -lzip. Builtins
# only: PATH holds nothing but the stand-ins.
cat > "$TMP/cc" <<'EOF'
#!/bin/bash
words=("$@")
if [ "$1" = -E ]; then
    read -r line
    line=${line#*<}
    words+=("${line%>*}")
fi
for f in ${FAIL_PROBES:-}; do
    for w in "${words[@]}"; do
        [ "$w" = "$f" ] && exit 1
    done
done
exit 0
EOF
chmod +x "$TMP/cc"

# Every command deps.sh looks for, unless the test leaves one out.
tools=(make pandoc dot gnuplot valgrind mpirun)
stand_ins() {   # folder, commands to leave out...
    local dir=$1 t
    shift
    mkdir -p "$dir"
    for t in "${tools[@]}"; do
        case " $* " in *" $t "*) continue ;; esac
        printf '#!/bin/sh\nexit 0\n' > "$dir/$t"
        chmod +x "$dir/$t"
    done
}

# Runs deps.sh --check; prints its status, then its output. Leaving out
# cc leaves CC unset, so that deps.sh looks for cc and finds none.
deps() {   # FAIL_PROBES, commands to leave out...
    local fail=$1 dir cc=(CC="$TMP/cc")
    shift
    dir=$(mktemp -d "$TMP/path.XXXXXX")
    stand_ins "$dir" "$@"
    case " $* " in *" cc "*) cc=() ;; esac
    local out status
    out=$(env -i PATH="$dir" "${cc[@]}" FAIL_PROBES="$fail" \
        /bin/bash "$ROOT/mk/deps.sh" --check 2>&1)
    status=$?
    printf '%s\n%s\n' "$status" "$out"
}

# deps.sh with these probes failing must name exactly these packages.
expect() {   # expected packages (space-separated), FAIL_PROBES, left out...
    local want=$1 got status out
    shift
    out=$(deps "$@")
    status=${out%%$'\n'*}
    out=${out#"$status"}
    out=${out#$'\n'}
    if [ -z "$want" ]; then
        [ "$status" = 0 ] && [ -z "$out" ] && return 0
        printf 'with every probe passing, deps.sh --check said (status %s):\n%s\n' \
            "$status" "$out"
        return 1
    fi
    got=$(sed -n 's/^deps: would install //p' <<< "$out")
    if [ "$status" = 1 ] && [ "$got" = "$want" ]; then
        return 0
    fi
    printf 'failing "%s" should name "%s"; deps.sh --check said (status %s):\n%s\n' \
        "$*" "$want" "$status" "$out"
    return 1
}

tests=(
    "nothing missing names nothing|expect '' ''"
    # Debian's libblas-dev has cblas.h but no -lopenblas: the first
    # `make run` on such a machine must still install OpenBLAS.
    "libblas-dev's cblas.h without OpenBLAS|expect libopenblas-dev -lopenblas"
    "no cblas.h|expect libopenblas-dev cblas.h"
    "no -lfftw3|expect libfftw3-dev -lfftw3"
    "no fftw3.h|expect libfftw3-dev fftw3.h"
    "no -lz|expect zlib1g-dev -lz"
    "no -lcurl|expect libcurl4-openssl-dev -lcurl"
    "no curl/curl.h|expect libcurl4-openssl-dev curl/curl.h"
    "no -lcrypto (OpenSSL)|expect libssl-dev -lcrypto"
    "no openssl/evp.h|expect libssl-dev openssl/evp.h"
    "no -lzip|expect libzip-dev -lzip"
    "no zip.h|expect libzip-dev zip.h"
    "no -lpng|expect libpng-dev -lpng"
    "no png.h|expect libpng-dev png.h"
    "no -ljpeg|expect libjpeg-dev -ljpeg"
    "no jpeglib.h|expect libjpeg-dev jpeglib.h"
    "no -lcmocka|expect libcmocka-dev -lcmocka"
    "no cmocka.h|expect libcmocka-dev cmocka.h"
    "no -lmpi (Open MPI)|expect libopenmpi-dev -lmpi"
    "no -lmvec (glibc)|expect libc6-dev -lmvec"
    "no -lm and -ldl name libc6-dev once|expect libc6-dev '-lm -ldl'"
    "no compiler|expect 'gcc libc6-dev libopenblas-dev libfftw3-dev zlib1g-dev libcurl4-openssl-dev libssl-dev libzip-dev libpng-dev libjpeg-dev libcmocka-dev libopenmpi-dev' '' cc"
    "no pandoc|expect pandoc '' pandoc"
    "no dot|expect graphviz '' dot"
    "no gnuplot|expect gnuplot-nox '' gnuplot"
    "no valgrind|expect valgrind '' valgrind"
    "no mpirun|expect openmpi-bin '' mpirun"
    "no make|expect make '' make"
    "several at once|expect 'libopenblas-dev zlib1g-dev graphviz' '-lopenblas zlib.h' dot"
)

echo "[==========] deps: Running ${#tests[@]} test(s)."
passed=0
failed=()
for entry in "${tests[@]}"; do
    name=${entry%%|*}
    echo "[ RUN      ] $name"
    if out=$(eval "${entry#*|}" 2>&1); then
        echo "[       OK ] $name"
        passed=$((passed + 1))
    else
        sed 's/^/[  ERROR   ] /' <<< "$out"
        echo "[  FAILED  ] $name"
        failed+=("$name")
    fi
done
echo "[==========] deps: ${#tests[@]} test(s) run."
echo "[  PASSED  ] $passed test(s)."
if [ ${#failed[@]} -gt 0 ]; then
    echo "[  FAILED  ] ${#failed[@]} test(s), listed below:"
    for name in "${failed[@]}"; do
        echo "[  FAILED  ] $name"
    done
    exit 1
fi
exit 0
