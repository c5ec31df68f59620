#!/usr/bin/env bash
# measure.sh - the examples' times against Python's, on this machine, in
# one run: each C program and its Python script in turn, C then Python,
# ROUNDS times, each timed whole by /usr/bin/time (wall and CPU
# seconds), then the median of each and of the ratios C/Python pair by
# pair. Writes times.txt here; the chapter "After the book" quotes it.
#
#   make examples && tests/run.sh 60    (which builds mnist_tiny)
#   PY_DEZERO=/path/to/deep-learning-from-scratch-3 \
#       docs/runs/examples/measure.sh
#
# PY_DEZERO is a checkout of Python's DeZero (its examples/ and dezero/),
# run with Debian's NumPy (/usr/bin/python3). matplotlib, which Python's
# DeZero imports, is replaced by a stub that draws nothing, so Python's
# times leave out its pictures while C's include theirs (dot, gnuplot,
# libpng); so is scipy, which vae.py imports for norm.ppf alone. Both
# read the same data: the test suite's synthetic digits
# (tests/mnist_tiny.h) in MNIST's files, as many as below, since MNIST
# itself is not on this machine; the sizes of the networks are the
# scripts' own. Each pair runs the same work: Python's constants are
# changed with sed to the C program's settings (one epoch).
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=$ROOT/docs/runs/examples/times.txt
PY_DEZERO=${PY_DEZERO:?set PY_DEZERO to a checkout of Python DeZero}
PYTHON=${PYTHON:-/usr/bin/python3}
ROUNDS=${ROUNDS:-3}
TINY=$ROOT/tests/build/default/mnist_tiny
[ -x "$TINY" ] || { echo "measure.sh: build $TINY first (make test)" >&2
                    exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# matplotlib, drawing nothing
mkdir -p "$WORK/stub/matplotlib"
: > "$WORK/stub/matplotlib/__init__.py"
cat > "$WORK/stub/matplotlib/pyplot.py" <<'PY'
def __getattr__(name):
    class Anything:
        def __getattr__(self, n): return nothing
    def nothing(*args, **kwargs): return Anything()
    return nothing
PY
# scipy, which vae.py imports for norm.ppf: the standard library's
mkdir -p "$WORK/stub/scipy"
: > "$WORK/stub/scipy/__init__.py"
cat > "$WORK/stub/scipy/stats.py" <<'PY'
import numpy as np
from statistics import NormalDist
class norm:
    @staticmethod
    def ppf(p):
        return np.array([NormalDist().inv_cdf(float(v)) for v in np.ravel(p)])
PY
# The data: in a DeZero cache for C, and in $HOME/.dezero for Python,
# which wants all four files gzip-compressed: 10,000 training and 2,000
# test digits for mnist, 2,560 training digits for gan and vae (20
# batches of gan's 128, 160 of vae's 16).
digits() {   # home, training digits, test digits
    mkdir -p "$1/.dezero"
    "$TINY" "$1/.dezero" "$2" "$3"
    gzip "$1/.dezero/t10k-images-idx3-ubyte" \
         "$1/.dezero/t10k-labels-idx1-ubyte"
}
digits "$WORK/home" 10000 2000
digits "$WORK/gan-home" 2560 100
mkdir -p "$WORK/run"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# The Python scripts, with the C runs' settings.
EX=$PY_DEZERO/examples
cp "$EX/tanh.py" "$EX/spiral.py" "$WORK/"
sed 's/^max_epoch = 5/max_epoch = 1/' "$EX/mnist.py" > "$WORK/mnist.py"
sed 's/^max_epoch = 5/max_epoch = 1/' "$EX/gan.py" > "$WORK/gan.py"
sed 's/^max_epoch = 10/max_epoch = 1/' "$EX/vae.py" > "$WORK/vae.py"

# name, home, C command, Python script
runs=(
    "tanh|home|$ROOT/examples/tanh|tanh.py"
    "spiral|home|$ROOT/examples/spiral|spiral.py"
    "mnist|home|env DEZERO_EPOCHS=1 $ROOT/examples/mnist|mnist.py"
    "gan|gan-home|env DEZERO_EPOCHS=1 $ROOT/examples/gan|gan.py"
    "vae|gan-home|env DEZERO_EPOCHS=1 $ROOT/examples/vae|vae.py"
)

timed() {   # label, command...: appends "label wall cpu" to $WORK/times
    local label=$1
    shift
    (cd "$WORK/run" && /usr/bin/time -f "$label %e %U %S" -a \
        -o "$WORK/times" "$@" > /dev/null 2>&1) ||
        { echo "measure.sh: $label failed" >&2; exit 1; }
}
for entry in "${runs[@]}"; do
    IFS='|' read -r name home c_command script <<< "$entry"
    home=$WORK/$home
    for ((r = 1; r <= ROUNDS; r++)); do
        # shellcheck disable=SC2086
        timed "$name-c" env HOME="$home" DEZERO_CACHE_DIR="$home/.dezero" \
            DEZERO_OFFLINE=1 $c_command
        timed "$name-python" env HOME="$home" PYTHONWARNINGS=ignore \
            PYTHONPATH="$PY_DEZERO:$WORK/stub" "$PYTHON" "$WORK/$script"
    done
done

{
    echo "# docs/runs/examples/times.txt, by measure.sh"
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' \
        /proc/cpuinfo | head -1), $(free -g | awk '/^Mem/ {print $2}') GB," \
        "$(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "python: $("$PYTHON" --version 2>&1), NumPy" \
        "$("$PYTHON" -c 'import numpy; print(numpy.__version__)')"
    echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)"
    echo "load average before: $LOAD_BEFORE"
    echo "data: synthetic digits (tests/mnist_tiny.h), 10000 + 2000 for" \
        "mnist, 2560 for gan and vae; $ROUNDS rounds, C then Python"
    echo
    echo "# example: C wall s, Python wall s (each run, in order);" \
         "median wall C, Python; median ratio C/Python (wall, CPU)"
    for entry in "${runs[@]}"; do
        name=${entry%%|*}
        awk -v n="$name" '
            function median(a, k,   i, j, t) {
                for (i = 1; i <= k; i++)
                    for (j = i + 1; j <= k; j++)
                        if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
            }
            $1 == n "-c" { cw[++c] = $2; cc[c] = $3 + $4 }
            $1 == n "-python" { pw[++p] = $2; pc[p] = $3 + $4 }
            END {
                line = ""
                for (i = 1; i <= c; i++) {
                    rw[i] = cw[i] / pw[i]; rc[i] = cc[i] / pc[i]
                    line = line sprintf(" %s/%s", cw[i], pw[i])
                }
                printf "%s:%s; median %.2f s, %.2f s; C/Python %.3f wall," \
                       " %.3f CPU\n", n, line, median(cw, c), median(pw, p),
                       median(rw, c), median(rc, c)
            }' "$WORK/times"
    done
    echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "# each run: label, wall, user and system seconds"
    cat "$WORK/times"
} > "$OUT"
cat "$OUT"
