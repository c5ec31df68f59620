#!/usr/bin/env bash
# run.sh - the cumulative test suite: builds common/ and the steps, then
# compiles and runs every cmocka test program that applies.
#
#   tests/run.sh            everything, for every step present
#   tests/run.sh 7          what applies to step 07 only
#
# Environment: SANITIZE=1 (ASan+UBSan build), WERROR=1, JOBS (builds and
# test programs at once, default: the number of cores).
# A capability test in tests/steps/ declares its range in its first lines:
#   // FIRST_STEP: 02
#   // LAST_STEP: 22        (optional)
# and is compiled against each step in that range (tests/step_under_test.h).
set -u
cd "$(dirname "$0")/.."
# The builds below run JOBS at a time on their own; a `make -j` around
# this script would otherwise leave each of them warning that its
# jobserver is out of reach.
unset MAKEFLAGS MFLAGS
ROOT=$PWD
STEP_ARG=${1:-}
JOBS=${JOBS:-$(nproc)}
VARIANT=default
[ "${SANITIZE:-0}" = 1 ] && VARIANT=asan
MAKEFLAGS_T=(--no-print-directory -s SANITIZE="${SANITIZE:-0}" WERROR="${WERROR:-0}")
BUILD=tests/build/$VARIANT
mkdir -p "$BUILD"

# OpenBLAS picks its kernels by the CPU's model number, and Debian's
# 0.3.21 does not know the CPUs of some virtual machines ("Intel Xeon
# Processor", AVX-512 and all): it falls back to its Prescott kernels,
# whose sums in another order change the last digit of step 47's loss.
# Where the CPU has AVX2 and FMA the suite names Haswell's kernels
# instead, which print Python's digits, as SkylakeX's, Zen's and
# Nehalem's do, and which valgrind can run (it stops at AVX-512's
# instructions). OPENBLAS_VERBOSE=2 prints the choice; a reader's
# OPENBLAS_CORETYPE is kept.
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
    flags=" $(grep -m1 '^flags' /proc/cpuinfo 2> /dev/null) "
    [[ "$flags" = *" avx2 "* && "$flags" = *" fma "* ]] &&
        export OPENBLAS_CORETYPE=Haswell
fi

# ---- which steps
all_steps=()
for d in steps/step[0-9][0-9]; do
    [ -d "$d" ] && all_steps+=("${d#steps/step}")
done
if [ -n "$STEP_ARG" ]; then
    n=$(printf '%02d' "$((10#$STEP_ARG))")
    [ -d "steps/step$n" ] || { echo "run.sh: there is no steps/step$n" >&2; exit 2; }
    steps=("$n")
else
    steps=("${all_steps[@]}")
fi

# ---- build the library and the steps
make "${MAKEFLAGS_T[@]}" -C common || exit 1
printf '%s\n' "${steps[@]}" |
    xargs -P "$JOBS" -I{} make "${MAKEFLAGS_T[@]}" -C steps/step{} ||
    { echo "run.sh: a step failed to build" >&2; exit 1; }

# ---- the examples (examples/Makefile), built from step 60's framework:
# tested with every run that tests step 60.
with_examples=0
[[ " ${steps[*]} " = *" 60 "* ]] && [ -d examples ] && with_examples=1
if [ "$with_examples" = 1 ]; then
    make "${MAKEFLAGS_T[@]}" -C examples ||
        { echo "run.sh: the examples failed to build" >&2; exit 1; }
fi

# ---- compile the test programs (in parallel)
eval "$(make --no-print-directory -s -f mk/print-flags.mk SANITIZE="${SANITIZE:-0}" WERROR="${WERROR:-0}")"
# Compiling some thousand test programs is most of the suite's CPU time,
# and GCC's optimizer most of each compile, so the test programs
# themselves are built at -O0: a third less CPU than -O1 with the
# sanitizers and 30% less without, and they run as fast (the work is in
# the framework's objects; step 57's tests took the same time at both
# levels). The numbers are the same at every level: -ffp-contract=off
# stays, and none reorders floating-point sums. common/ and the
# framework objects of steps 23 and up, and every program the golden and
# valgrind checks run, keep flags.mk's -O2, and with it the warnings
# that need the optimizer (-Wmaybe-uninitialized); a test of steps 01-22
# compiles the step's main.c in, which its own build compiles at -O2.
CFLAGS=${CFLAGS/-O2/-O0}
# Linking is the rest: GNU ld (bfd) spends as much CPU linking a
# test program as GCC spends compiling it, gold (binutils' other linker)
# a fifth of that, and there are a thousand programs. gold links them
# wherever this compiler can use it.
if echo 'int main(void) { return 0; }' |
        $CC $CFLAGS $LDFLAGS -fuse-ld=gold -x c - -o "$BUILD/gold-probe" \
        2> /dev/null; then
    LDFLAGS="$LDFLAGS -fuse-ld=gold"
fi
rm -f "$BUILD/gold-probe" "$BUILD/gold-probe.d"
LIBND=common/build/$VARIANT/libnd.a

# ---- the shared libraries the test programs link with
# A test program linked with libnd.a holds its own copy of the library,
# debugging information and all: 1.4 MB, and more with the sanitizers,
# for each of a thousand programs. So the test programs link with
# shared libraries instead, made here from the same objects (flags.mk
# builds them position-independent): libnd.so from libnd.a, and
# libstepNN.so from the framework objects of step NN (23 and up), which
# `make objects` lists once built. Each is found through the programs'
# rpath; the readers' own programs stay linked with libnd.a.
#
# A file is rebuilt only when it is missing, when its command changed
# (kept in out.cmd), or when a file it was built from is newer. A newer
# shared library it links does not count: it is loaded when the program
# runs, and a change to what it offers shows in a header.
up_to_date() {    # out command files...
    local out=$1 command=$2 file
    shift 2
    [ -f "$out" ] && [ -f "$out.cmd" ] || return 1
    [ "$(< "$out.cmd")" = "$command" ] || return 1
    for file in "$@"; do
        case $file in -*|''|*.so) continue ;; esac
        [ -e "$file" ] && [ ! "$file" -nt "$out" ] || return 1
    done
}
LIB=$BUILD/lib
mkdir -p "$LIB"
shared_library() {   # name.so, the objects or archives it is made from...
    local out=$LIB/$1 command
    shift
    command="$CC -shared -Wl,-soname,$(basename "$out") -o $out $* $LDFLAGS $LDLIBS"
    up_to_date "$out" "$command" "$@" && return 0
    rm -f "$out.cmd"
    # shellcheck disable=SC2086
    $command && printf '%s\n' "$command" > "$out.cmd" ||
        { echo "run.sh: $out failed to link" >&2; exit 1; }
}
shared_library libnd.so -Wl,--whole-archive "$LIBND" -Wl,--no-whole-archive
LIBND_SO=$LIB/libnd.so
RPATH=-Wl,-rpath,$ROOT/$LIB
declare -A step_library
for n in "${steps[@]}"; do
    (( 10#$n >= 23 )) || continue
    make "${MAKEFLAGS_T[@]}" -C "steps/step$n" objects || exit 1
    # shellcheck disable=SC2046
    shared_library "libstep$n.so" $(ls steps/step$n/build/$VARIANT/dezero/*.o) \
        "$LIBND_SO"
    step_library[$n]=$LIB/libstep$n.so
done

jobs_file=$(mktemp "$BUILD/jobs.XXXXXX")
trap 'rm -f "$jobs_file"' EXIT
programs=()     # "binary|label"

for src in tests/common/test_*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c)
    out=$BUILD/common/$name
    echo "$out|$src|$LIBND_SO $RPATH" >> "$jobs_file"
    programs+=("$out|common/$name")
done

range_of() {   # prints "first last" of a capability test
    local first last
    first=$(sed -n 's|^// FIRST_STEP: *\([0-9]*\).*|\1|p' "$1" | head -1)
    last=$(sed -n 's|^// LAST_STEP: *\([0-9]*\).*|\1|p' "$1" | head -1)
    echo "$((10#${first:-99})) $((10#${last:-99}))"
}

for src in tests/steps/test_*.c; do
    [ -f "$src" ] || continue
    read -r first last < <(range_of "$src")
    name=$(basename "$src" .c)
    for n in "${steps[@]}"; do
        (( 10#$n >= first && 10#$n <= last )) || continue
        out=$BUILD/step$n/$name
        echo "$out|$src|${step_library[$n]:-} $LIBND_SO $RPATH -DSTEP=$((10#$n)) -Isteps/step$n -Isteps/step$n/dezero" >> "$jobs_file"
        programs+=("$out|step$n/$name")
    done
done

# The examples' test programs run the examples' programs, the sanitizer
# builds in the SANITIZE=1 suite, and test the examples' own support,
# compiled in (tests/examples/).
if [ "$with_examples" = 1 ]; then
    examples_flags="-Iexamples examples/picture.c"
    if [ "$VARIANT" = asan ]; then
        examples_flags+=" -DEXAMPLES_OUT=examples/build/asan/"
        examples_flags+=" -DEXAMPLES_SANITIZED"
    else
        examples_flags+=" -DEXAMPLES_OUT=examples/"
    fi
    for src in tests/examples/test_*.c; do
        [ -f "$src" ] || continue
        name=$(basename "$src" .c)
        out=$BUILD/examples/$name
        echo "$out|$src|$LIBND_SO $RPATH $examples_flags" >> "$jobs_file"
        programs+=("$out|examples/$name")
    done
fi

# The golden-output checker, and the list of steps it checks.
echo "$BUILD/golden_test|tests/golden_test.c|$LIBND" >> "$jobs_file"
# The program that leaks on purpose, to prove the leak checkers work.
echo "$BUILD/canary_leak|tests/canary_leak.c|" >> "$jobs_file"
# The writer of the suite's tiny MNIST, for the valgrind runs below.
echo "$BUILD/mnist_tiny|tests/mnist_tiny.c|" >> "$jobs_file"

# A test program is rebuilt as a shared library is (up_to_date), and
# also when a header it included is newer (the compiler's out.d, from
# -MMD). A warm `make test STEP=N` recompiles nothing that did not change.
headers_of() {   # out.d: the files the compiler read
    tr -s ' \\' '\n\n' < "$1" | grep -v ':$'
}
compile_one() {   # one line of the jobs file: "out|source|extra arguments"
    local out src extra command
    IFS='|' read -r out src extra <<< "$1"
    mkdir -p "$(dirname "$out")"
    command="$CC $CFLAGS -Icommon -Itests -o $out $src $extra $LDFLAGS $LDLIBS -lcmocka"
    # shellcheck disable=SC2046,SC2086
    [ -f "$out.d" ] && up_to_date "$out" "$command" $extra \
        $(headers_of "$out.d") && return 0
    rm -f "$out.cmd"
    # shellcheck disable=SC2086
    $command && printf '%s\n' "$command" > "$out.cmd"
}
# The GPU kernels' element functions, run on the host against the CPU
# half (tests/gpu/): nvcc compiles them, so this needs nvcc and no GPU,
# and runs wherever the GPU half builds (common/cuda/Makefile finds nvcc
# the same way). The host side links CUDA's runtime statically, which
# registers the file's (empty) device image without asking for a GPU.
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=$(command -v nvcc 2> /dev/null || true)
[ -z "$NVCC" ] && [ -x "$CUDA_HOME/bin/nvcc" ] && NVCC=$CUDA_HOME/bin/nvcc
gpu_elements=""
if [ -n "$NVCC" ]; then
    host_object=$BUILD/gpu/host_elements.o
    nvflags="-std=c++17 -O2 -g --fmad=false -Icommon -MMD -MP"
    nvflags+=" -Xcompiler -fPIC,-Wall,-Wextra"
    [ "${WERROR:-0}" = 1 ] &&
        nvflags+=" -Werror all-warnings -Xcompiler -Werror"
    # -Xcompiler splits its argument at commas: one sanitizer each.
    for flag in ${SANFLAGS:-}; do
        case $flag in
            -fsanitize=*) list=${flag#-fsanitize=}
                for s in ${list//,/ }; do
                    nvflags+=" -Xcompiler -fsanitize=$s"
                done ;;
            *) nvflags+=" -Xcompiler $flag" ;;
        esac
    done
    command="$NVCC $nvflags -c tests/gpu/host_elements.cu -o $host_object"
    mkdir -p "$BUILD/gpu"
    # shellcheck disable=SC2046
    if ! { [ -f "${host_object%.o}.d" ] &&
           up_to_date "$host_object" "$command" tests/gpu/host_elements.cu \
               $(headers_of "${host_object%.o}.d"); }; then
        rm -f "$host_object.cmd"
        # shellcheck disable=SC2086
        $command && printf '%s\n' "$command" > "$host_object.cmd" ||
            { echo "run.sh: $host_object failed to compile" >&2; exit 1; }
    fi
    cuda_lib=$(mk/cuda_lib.sh "$NVCC") || exit 1
    gpu_elements=$BUILD/gpu/test_gpu_elements
    cudart="-L$cuda_lib -lcudart_static -lrt -lpthread -lstdc++"
    echo "$gpu_elements|tests/gpu/test_gpu_elements.c|$host_object" \
         "$LIBND_SO $RPATH $cudart" >> "$jobs_file"
    programs+=("$gpu_elements|gpu/test_gpu_elements")
fi

# The GPU stand-in (tests/gpu/host_gpu.c): a GPU library whose device
# memory is host memory and whose operations are the CPU half's, and an
# empty libcuda.so.1 for gpu.c's driver check. The cuda cases of the GPU
# tests run against it below on every machine: the C side of every GPU
# path (dispatch, checks, the framework's device code) runs here, while
# the kernels themselves are left to test_gpu_elements and a real GPU
# (make gpu-check). test_gpu_batch counts what a batch asks of it.
STANDIN=$LIB/libhost_gpu.so
STANDIN_DRIVER=$BUILD/gpu/driver/libcuda.so.1
mkdir -p "$(dirname "$STANDIN_DRIVER")"
command="$CC $CFLAGS -Icommon -Itests -shared -o $STANDIN tests/gpu/host_gpu.c $LIBND_SO $RPATH $LDFLAGS $LDLIBS"
# shellcheck disable=SC2086
if ! { [ -f "$STANDIN_DRIVER" ] && [ -f "${STANDIN%.so}.d" ] &&
       up_to_date "$STANDIN" "$command" tests/gpu/host_gpu.c \
           $(headers_of "${STANDIN%.so}.d"); }; then
    rm -f "$STANDIN.cmd"
    # shellcheck disable=SC2086
    { $command && $CC -shared -o "$STANDIN_DRIVER" -x c /dev/null &&
        printf '%s\n' "$command" > "$STANDIN.cmd"; } ||
        { echo "run.sh: the GPU stand-in failed to build" >&2; exit 1; }
fi
STANDIN_ENV=(env "LD_LIBRARY_PATH=$ROOT/$(dirname "$STANDIN_DRIVER")"
             "ND_GPU_LIBRARY=$ROOT/$STANDIN")

export -f compile_one up_to_date headers_of
export CC CFLAGS LDFLAGS LDLIBS
if ! xargs -P "$JOBS" -d '\n' -n1 bash -c 'compile_one "$1"' _ < "$jobs_file"; then
    echo "run.sh: a test program failed to compile" >&2
    exit 1
fi

# ---- run them, JOBS at a time, and add up cmocka's counts
# Each program is queued (queue_program) with its label; run_queue runs
# them JOBS at a time, each with its output in a file of its own, and
# reports them in the order they were queued, so the log, the counts
# and the list of failures read as if they had run one after the other.
passed=0 failed=0 skipped=0
failures=()     # "label: test: first error line", for the list at the end
job_labels=()   # per queued program: its label,
job_envs=()     # an environment assignment for it ("" for none),
job_commands=() # its command, quoted for eval,
job_parts=()    # 1 when it goes on from the one before, under its label
long_jobs=()    # the indexes of the long ones, which start first
queue_program() {   # label, environment assignment or "", command...
    case $1 in golden|valgrind*|book) long_jobs+=(${#job_labels[@]}) ;; esac
    job_labels+=("$1")
    job_envs+=("$2")
    shift 2
    local command
    printf -v command '%q ' "$@"
    job_commands+=("$command")
    job_parts+=(0)
}
run_job() {   # index, output folder: writes index.out, then index.status
    local first
    read -r first _ <<< "${job_commands[$1]}"
    (
        [ -n "${job_envs[$1]}" ] && export "${job_envs[$1]?}"
        export CMOCKA_MESSAGE_OUTPUT=stdout
        # A program replaces this shell: a crash is reported by its
        # status alone (bash's word on it goes to run_job's stderr).
        declare -F "$first" > /dev/null || first=exec
        [ "$first" = exec ] || first=
        eval "$first ${job_commands[$1]}" 2>&1
    ) > "$2/$1.out" 2> /dev/null
    echo $? > "$2/$1.status.new" && mv "$2/$1.status.new" "$2/$1.status"
}
# The long ones (the golden runs, valgrind's, the book's) start first,
# so that the short ones fill the cores around them and no long one is
# left running alone at the end; the reports keep the queue's order.
# A job whose shell was killed before it wrote its status (the kernel's
# out-of-memory killer, a stray kill) is gone without one: it is
# reported as failed, with the reason, instead of waited for forever.
run_queue() {
    local folder next=0 reported=0 i n=${#job_labels[@]}
    local order=("${long_jobs[@]}") running=() still pids=()
    for ((i = 0; i < n; i++)); do
        [[ " ${long_jobs[*]} " = *" $i "* ]] || order+=("$i")
    done
    folder=$(mktemp -d "$BUILD/run.XXXXXX")
    while (( reported < n )); do
        still=()
        for i in "${running[@]}"; do
            [ -f "$folder/$i.status" ] && continue
            if ! kill -0 "${pids[i]}" 2> /dev/null &&
                    [ ! -f "$folder/$i.status" ]; then
                echo "run.sh: killed before it could report its status" \
                    >> "$folder/$i.out"
                echo 137 > "$folder/$i.status"
                continue
            fi
            still+=("$i")
        done
        running=("${still[@]}")
        while (( next < n && ${#running[@]} < JOBS )); do
            run_job "${order[next]}" "$folder" 2> /dev/null &
            pids[order[next]]=$!
            running+=("${order[next]}")
            next=$((next + 1))
        done
        while (( reported < n )) && [ -f "$folder/$reported.status" ]; do
            report_program "$reported" "$folder"
            reported=$((reported + 1))
        done
        (( reported < n )) && wait -n
    done
    wait
    rm -rf "$folder"
}
report_program() {   # index, output folder: prints and counts it
    local label=${job_labels[$1]}
    [ "${job_parts[$1]}" = 1 ] || echo "== $label"
    local output status
    output=$(< "$2/$1.out")
    status=$(< "$2/$1.status")
    printf '%s\n' "$output"
    local known=${#failures[@]}
    # One pass of awk over the output: the last of cmocka's counts ("-"
    # where it printed none), then each failed test with its first
    # message: the ERROR line, or else the failing check's location
    # (cmocka's own assertions print it).
    local p f s line
    {
        read -r p f s
        while IFS= read -r line; do
            failures+=("$label: $line")
        done
    } < <(awk '
        /^\[  PASSED  \] [0-9]+ test/ { p = $4 }
        /^\[  FAILED  \] [0-9]+ test/ { f = $4 }
        /^\[  SKIPPED \] [0-9]+ test/ { s = $4 }
        END {
            print (p == "" ? "-" : p), (f == "" ? "-" : f), \
                  (s == "" ? "-" : s)
            for (i = 1; i <= n; i++) print lines[i]
        }
        function reset() { name = ""; msg = ""; loc = "" }
        /^\[ RUN      \] / { reset(); name = substr($0, 14); next }
        /^\[       OK \] |^\[  SKIPPED \] / { reset(); next }
        /listed below:$/   { listed = 1; next }
        /^ERROR: / && msg == "" { msg = substr($0, 8) }
        /^\[  ERROR   \] --- / && msg == "" {
            m = substr($0, 18)
            if (m !~ /^\[   LINE/) msg = m
        }
        loc == "" && match($0, /--- [^ ]+:[0-9]+: error/) {
            loc = substr($0, RSTART + 4, RLENGTH - 11)
        }
        /^\[  FAILED  \] [^0-9]/ {
            if (name != "") {
                lines[++n] = substr($0, 14) \
                    (loc != "" ? " at " loc : "") (msg != "" ? ": " msg : "")
            } else if (listed && !n) {
                lines[++n] = substr($0, 14)    # a check without RUN lines
            }
            reset()
        }' "$2/$1.out")
    [ "$p" = - ] && p=
    [ "$f" = - ] && f=
    [ "$s" = - ] && s=
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    skipped=$((skipped + ${s:-0}))
    if [ "$status" -ne 0 ] && [ -z "$f" ]; then
        echo "$label: exited with status $status"
        failed=$((failed + 1))
        failures+=("$label: exited with status $status")
    elif [ "${f:-0}" -gt 0 ] && [ ${#failures[@]} -eq "$known" ]; then
        failures+=("$label: $f test(s) failed")
    fi
}

# A leak check that does not work must fail, not pass: the canary leaks
# on purpose, and LeakSanitizer must say so.
lsan_canary() {
    local report
    report=$(ASAN_OPTIONS=detect_leaks=1 "./$BUILD/canary_leak" 2>&1)
    if [ $? -eq 0 ] || ! grep -q 'LeakSanitizer: detected memory leaks' \
            <<< "$report"; then
        printf '%s\n' "$report"
        echo "[  FAILED  ] 1 test(s), listed below:"
        echo "[  FAILED  ] LeakSanitizer missed a leak: it is off here" \
             "(under ptrace, such as gdb or strace, it turns itself off)," \
             "so this run's leak checks would prove nothing"
        return 1
    fi
    echo "[  PASSED  ] 1 test(s)."
}
[ "$VARIANT" = asan ] && queue_program "LeakSanitizer canary" "" lsan_canary

# Until step 17 the programs leave their graphs to the operating system
# (CONTRIBUTING.md, 4), so LeakSanitizer only watches steps 17 and up.
for entry in "${programs[@]}"; do
    label=${entry#*|}
    leaks=1
    [[ $label =~ ^step([0-9][0-9])/ ]] && (( 10#${BASH_REMATCH[1]} < 17 )) && leaks=0
    queue_program "$label" "ASAN_OPTIONS=detect_leaks=$leaks" "./${entry%%|*}"
done
# The GPU tests' cuda cases again, against the stand-in (see above).
for entry in "${programs[@]}"; do
    label=${entry#*|}
    case $label in
        common/test_gpu|step*/test_device) args=(--gpu-only) ;;
        step*/test_gpu_batch) args=() ;;
        *) continue ;;
    esac
    queue_program "$label (GPU stand-in)" "ASAN_OPTIONS=detect_leaks=1" \
        "${STANDIN_ENV[@]}" "./${entry%%|*}" "${args[@]}"
done

golden_steps=()
for n in "${steps[@]}"; do
    [ -f "tests/golden/step$n.txt" ] && golden_steps+=("$n")
done
# One golden_test per step, so that the steps run JOBS at a time: all
# are reported under the one label, in the order of the steps.
for n in "${golden_steps[@]}"; do
    queue_program golden "" "./$BUILD/golden_test" "$VARIANT" "$n"
    [ "$n" = "${golden_steps[0]}" ] || job_parts[-1]=1
done

# From step 17 on every program is leak-free (CONTRIBUTING.md, 4):
# valgrind checks it here; the SANITIZE=1 run checks it with LeakSanitizer.
# The program runs in a scratch folder, its DeZero cache too, so that the
# files it writes stay out of the sources and of ~/.dezero. Step 48's
# picture classifies a grid of 4.3 million points, which valgrind takes
# over a minute on: DEZERO_GRID_STEP makes the grid 100 times coarser
# here, the same code on 43,000 points (the golden test runs it whole).
# A training loop is as well checked in a few rounds as in thousands:
# valgrind sees 100 of the 10,000 iterations of steps 43-46
# (DEZERO_ITERS) and one epoch (DEZERO_EPOCHS) of the training from
# step 48 on. A step that reads data gets its inputs
# (tests/golden/inputs.tsv) in the scratch folder; step 51's MNIST takes
# valgrind minutes an epoch even on the tiny set, so valgrind sees 100
# training and 100 test images: every line of the program, once.
# GPU support is off (ND_GPU_LIBRARY names no library), as in the golden
# runs: step 52 then trains on the CPU without opening the CUDA
# libraries, whose loading valgrind flags inside the dynamic loader.
# A program that runs more than once in the golden test
# (tests/golden/runs.tsv: step 53's second run loads what the first one
# saved) runs as often here, in the same scratch folder. Nothing is
# downloaded (DEZERO_OFFLINE): step 58 stops at VGG16's weights.
VALGRIND=(valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect
          --error-exitcode=99 --quiet)
leak_check() {   # NN
    local program=$ROOT/steps/step$1/step$1 report scratch input runs
    scratch=$(mktemp -d)
    input=$(awk -v s="step$1" '$1 == s { print $2 }' tests/golden/inputs.tsv)
    case $input in
        '') ;;
        mnist-tiny) "./$BUILD/mnist_tiny" "$scratch" 100 100 ;;
        vgg16-inputs) cp tests/golden/files/step58_zebra.jpg \
                "$scratch/zebra.jpg" &&
            cp tests/golden/files/step58_labels.txt \
                "$scratch/imagenet1000_clsidx_to_labels.txt" ;;
        *) echo "tests/golden/inputs.tsv: step$1: no input $input"; false ;;
    esac || { rm -rf "$scratch"; return 1; }
    runs=$(awk -v s="step$1" '$1 == s { print $2 }' tests/golden/runs.tsv)
    local status=0 run
    for ((run = 1; run <= ${runs:-1} && status == 0; run++)); do
        report=$(cd "$scratch" && DEZERO_CACHE_DIR=$scratch DEZERO_OFFLINE=1 \
            DEZERO_GRID_STEP=0.01 DEZERO_ITERS=100 DEZERO_EPOCHS=1 \
            ND_GPU_LIBRARY=/nonexistent/libnd_cuda.so \
            "${VALGRIND[@]}" "$program" 2>&1 >/dev/null)
        status=$?
    done
    rm -rf "$scratch"
    if [ $status -eq 99 ]; then
        printf '%s\n' "$report"
        echo "[  FAILED  ] 1 test(s), listed below:"
        echo "[  FAILED  ] step$1 leaks or misuses memory under valgrind"
        return 1
    fi
    echo "[  PASSED  ] 1 test(s)."
}
# valgrind must be there, and must see the canary's leak.
valgrind_canary() {
    local report
    if ! command -v valgrind >/dev/null; then
        echo "[  FAILED  ] 1 test(s), listed below:"
        echo "[  FAILED  ] valgrind is not installed (mk/deps.sh installs it)"
        return 1
    fi
    report=$("${VALGRIND[@]}" "./$BUILD/canary_leak" 2>&1)
    if [ $? -ne 99 ]; then
        printf '%s\n' "$report"
        echo "[  FAILED  ] 1 test(s), listed below:"
        echo "[  FAILED  ] valgrind missed a leak: its leak checks are off"
        return 1
    fi
    echo "[  PASSED  ] 1 test(s)."
}
if [ "$VARIANT" = default ]; then
    queue_program "valgrind canary" "" valgrind_canary
    for n in "${steps[@]}"; do
        (( 10#$n >= 17 )) && queue_program "valgrind step$n" "" leak_check "$n"
    done
fi

# The README's first command, `make run`: its targets must resolve (make
# -n only prints what the top Makefile would do; the steps are built).
readme_run_check() {
    local out
    if ! out=$(make -n --no-print-directory run 2>&1); then
        printf '%s\n' "$out"
        echo "[  FAILED  ] 1 test(s), listed below:"
        echo "[  FAILED  ] make run (README) does not resolve"
        return 1
    fi
    echo "[  PASSED  ] 1 test(s)."
}
# mk/deps.sh names exactly the packages whose probes fail (deps_check).
# The book: every code reference in docs/ must resolve (docs/README.md).
# These three build no C, so a sanitizer cannot change what they find:
# the plain suite runs them and the SANITIZE=1 suite does not repeat
# them (the book's epubcheck alone is a minute of CPU).
if [ "$VARIANT" = default ]; then
    [ -z "$STEP_ARG" ] && queue_program "make run" "" readme_run_check
    [ -z "$STEP_ARG" ] && queue_program deps "" tests/deps_check.sh
    queue_program book "" tests/book_check.sh "${STEP_ARG}"
fi

run_queue
echo
if [ ${#failures[@]} -gt 0 ]; then
    echo "Failed (program: test -- its first message):"
    printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
