#!/usr/bin/env bash
# measure.sh - the times and the memory that chapters 43, 48 and 60
# quote, measured on this machine and written to times.txt here (the
# book's kept record; README.md says where and when it was made).
# Each program runs in a scratch folder, seeded where it draws, three
# times; /usr/bin/time gives the wall time, /proc the peak resident
# memory of the program itself, and a gnuplot found first on PATH
# measures each call of gnuplot separately. Step 60 is `make bench`'s recurrent section
# (bench/lstm.sh), against its floor of bare matrix products.
#
#   docs/runs/times/measure.sh     (after make -C steps/stepNN for each)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$here/times.txt

# gnuplot, timed on its own: the programs spawn it by name.
mkdir -p "$work/bin"
real_gnuplot=$(command -v gnuplot)
cat > "$work/bin/gnuplot" <<WRAP
#!/bin/sh
exec /usr/bin/time -a -o "$work/gnuplot.txt" -f '%e s, %M KiB' \
    "$real_gnuplot" "\$@"
WRAP
chmod +x "$work/bin/gnuplot"

# The program's own peak (VmHWM, read every 10 ms until it exits): the
# %M of /usr/bin/time would be its largest child's, gnuplot's, when that
# is larger. $1 is /usr/bin/time, or a subshell around it.
peak_of_child() {
    local pid="" hwm=0 v kids
    while [ -z "$pid" ] && kill -0 "$1" 2>/dev/null; do
        kids=$(pgrep -d, -P "$1")
        pid=$(pgrep -P "$1${kids:+,$kids}" -x "step$step" || true)
        sleep 0.005
    done
    while [ -n "$pid" ] && v=$(awk '/^VmHWM/ {print $2}' \
            "/proc/$pid/status" 2>/dev/null) && [ -n "$v" ]; do
        hwm=$v
        sleep 0.01
    done
    echo "$hwm"
}

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' \
        /proc/cpuinfo | head -1), $(awk '/MemTotal/ {print $2}' \
        /proc/meminfo) KiB memory"
    echo "system: $(. /etc/os-release && echo "$PRETTY_NAME"), $(uname -r)"
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "commit: $(git -C "$root" rev-parse --short HEAD)"
    for step in 43 48; do
        echo
        echo "step $step: wall time and peak memory, three runs"
        for run in 1 2 3; do
            rm -rf "$work/run" && mkdir "$work/run" && : > "$work/gnuplot.txt"
            (cd "$work/run" && PATH="$work/bin:$PATH" DEZERO_SEED=0 \
                /usr/bin/time -o "$work/time.txt" -f '%e' \
                "$root/steps/step$step/step$step" > /dev/null) &
            hwm=$(peak_of_child $!)
            wait $! || exit 1
            echo "  step$step: $(tail -1 "$work/time.txt") s, $hwm KiB;" \
                 "gnuplot, each call: $(paste -sd';' "$work/gnuplot.txt")"
        done
    done
    echo
    echo "step 60 against its floor: ROUNDS=3 bench/lstm.sh"
    ROUNDS=3 "$root/bench/lstm.sh" | sed '/^$/d; s/^/  /'
    echo
    echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out"
cat "$out"
