#!/usr/bin/env bash
# book_check.sh - the book's part of `make test`: every reference in every
# chapter resolves, every step has its chapter, and no line of a step's
# sources is longer than 80 columns. Then the checker tests itself on the
# fixtures in tests/book/ (a chapter naming code that does not exist must
# fail). The references are resolved by the book's own filter in check
# mode (docs/filters/book.lua, BOOK_MODE=check), so the check and the
# book cannot disagree. No step program is run, except where epubcheck
# is installed: then a small EPUB, made as the book's is, must pass it
# (tests/book/epub.md, whose pictures come from running steps 34 and 01).
#
#   tests/book_check.sh       every chapter and step
#   tests/book_check.sh 7     the chapter and sources of step 07
#
# The report is cmocka's format, which tests/run.sh adds up.
set -u
cd "$(dirname "$0")/.."
STEP_ARG=${1:-}
FILTER=docs/filters/book.lua
MAX_COLUMNS=80
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# ---- what to check
steps=()
if [ -n "$STEP_ARG" ]; then
    steps=("$(printf '%02d' "$((10#$STEP_ARG))")")
    chapters=("docs/step${steps[0]}.md")
else
    for d in steps/step[0-9][0-9]; do
        [ -d "$d" ] && steps+=("${d#steps/step}")
    done
    chapters=()
    for f in docs/*.md; do
        [ "$f" = docs/README.md ] || chapters+=("$f")
    done
fi

# ---- the checks

# Resolves every reference of one chapter; prints what does not resolve.
check_chapter() {
    BOOK_MODE=check pandoc --from markdown --to html5 --no-highlight \
        --lua-filter="$FILTER" -o /dev/null "$1" 2>&1
}

# Prints each line of the files longer than MAX_COLUMNS (tabs count to
# the next multiple of 8).
long_lines() {
    local f
    for f in "$@"; do
        expand -t 8 "$f" | LC_ALL=C.UTF-8 awk -v f="$f" -v max="$MAX_COLUMNS" \
            'length($0) > max { printf "%s:%d: %d columns (at most %d)\n",
                                f, NR, length($0), max }'
    done
}

step_sources() {
    find "steps/step$1" -path "steps/step$1/build" -prune -o -type f \
        \( -name '*.c' -o -name '*.h' \) -print | sort
}

# The chapter must fail the check with the message at its end:
# <!-- expect: MESSAGE -->
check_rejects() {
    local expect output
    expect=$(sed -n 's/^<!-- expect: \(.*\) -->$/\1/p' "$1")
    [ -n "$expect" ] ||
        { echo "$1 has no <!-- expect: ... --> line"; return 1; }
    if output=$(check_chapter "$1"); then
        echo "the check accepted $1; it should fail with: $expect"
        return 1
    fi
    case $output in
        *"$expect"*) return 0 ;;
    esac
    printf 'the check failed on %s without saying: %s\nit said:\n%s\n' \
        "$1" "$expect" "$output"
    return 1
}

# The listings extract.md pulls from sample.c, rendered as plain text,
# must be exactly extract.expected.
check_extraction() {
    local got
    got=$(pandoc --from markdown --to plain --wrap=none \
        --lua-filter="$FILTER" tests/book/extract.md 2>&1) || {
        echo "$got"; return 1; }
    diff -u tests/book/extract.expected <(printf '%s\n' "$got") ||
        { echo "the extracted code differs from tests/book/extract.expected"
          return 1; }
}

check_long_line_fixture() {
    local got want
    got=$(long_lines tests/book/long_line.c)
    want='tests/book/long_line.c:4: 81 columns (at most 80)
tests/book/long_line.c:6: 81 columns (at most 80)'
    [ "$got" = "$want" ] || {
        printf 'expected:\n%s\ngot:\n%s\n' "$want" "$got"; return 1; }
}

check_has_chapter() {
    [ -f "docs/step$1.md" ] || {
        echo "steps/step$1 has no chapter: write docs/step$1.md" \
             "(docs/README.md says how)"
        return 1; }
}

# A small EPUB, made as docs/Makefile makes the book's (its options, the
# filter, book.yaml) from tests/book/epub.md, which holds each kind of
# thing epubcheck has refused, must pass epubcheck (mk/epubcheck.sh).
check_epub() {
    local build=$TMP/epub out opts
    mkdir -p "$build"
    opts=$(make -s --no-print-directory -C docs print-epub-opts \
        BUILD="$build") || return 1
    # shellcheck disable=SC2086
    out=$(cd docs && BOOK_BUILD=$build pandoc $opts \
        -o "$build/check.epub" ../tests/book/epub.md 2>&1) ||
        { echo "$out"; return 1; }
    mk/epubcheck.sh "$build/check.epub"
}

check_columns() {
    local files out
    mapfile -t files < <(step_sources "$1")
    out=$(long_lines "${files[@]}")
    [ -z "$out" ] || { echo "$out"; return 1; }
}

# ---- run them: name|command..., chapters in parallel (one pandoc each)
tests=()
for n in "${steps[@]}"; do
    tests+=("step$n has its chapter|check_has_chapter $n")
done
for c in "${chapters[@]}"; do
    [ -f "$c" ] && tests+=("references in $c resolve|check_chapter $c")
done
for n in "${steps[@]}"; do
    tests+=("step$n sources within $MAX_COLUMNS columns|check_columns $n")
done
for f in tests/book/bad_*.md; do
    tests+=("the check rejects $f|check_rejects $f")
done
good=tests/book/good_reference.md
tests+=("the check accepts $good|check_chapter $good")
tests+=("definitions and regions are cut exactly|check_extraction")
tests+=("the column check reports long lines|check_long_line_fixture")
# epubcheck where it is installed (Debian package epubcheck), else skipped.
skipped=0
if ! mk/epubcheck.sh --installed; then
    skipped=1
else
    tests+=("an EPUB made as the book's passes epubcheck|check_epub")
fi

if ! command -v pandoc >/dev/null 2>&1; then
    echo "[==========] book: Running 1 test(s)."
    echo "[ RUN      ] pandoc is installed"
    echo "pandoc is missing: install it with sudo apt-get install pandoc"
    echo "[  FAILED  ] pandoc is installed"
    echo "[==========] book: 1 test(s) run."
    echo "[  PASSED  ] 0 test(s)."
    echo "[  FAILED  ] 1 test(s), listed below:"
    echo "[  FAILED  ] pandoc is installed"
    exit 1
fi

JOBS=${JOBS:-$(nproc)}
running=0
for i in "${!tests[@]}"; do
    (
        eval "${tests[$i]#*|}" > "$TMP/$i.out" 2>&1
        echo $? > "$TMP/$i.rc"
    ) &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

echo "[==========] book: Running ${#tests[@]} test(s)."
passed=0
failed=()
for i in "${!tests[@]}"; do
    name=${tests[$i]%%|*}
    echo "[ RUN      ] $name"
    if [ "$(cat "$TMP/$i.rc")" = 0 ]; then
        echo "[       OK ] $name"
        passed=$((passed + 1))
    else
        sed 's/^/[  ERROR   ] /' "$TMP/$i.out"
        echo "[  FAILED  ] $name"
        failed+=("$name")
    fi
done
echo "[==========] book: ${#tests[@]} test(s) run."
echo "[  PASSED  ] $passed test(s)."
[ "$skipped" -gt 0 ] && echo "[  SKIPPED ] $skipped test(s): epubcheck" \
    "is not installed (sudo apt-get install epubcheck)"
if [ ${#failed[@]} -gt 0 ]; then
    echo "[  FAILED  ] ${#failed[@]} test(s), listed below:"
    for name in "${failed[@]}"; do
        echo "[  FAILED  ] $name"
    done
    echo
    echo " ${#failed[@]} FAILED TEST(S)"
    exit 1
fi
exit 0
