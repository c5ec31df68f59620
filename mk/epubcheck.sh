#!/usr/bin/env bash
# epubcheck.sh - runs epubcheck (the Debian package epubcheck) on an EPUB
# and prints its errors: `make book` and tests/book_check.sh check the
# book with it. Exits 0 when the EPUB is valid, 1 when it is not, and 77
# when epubcheck is not installed (the callers then skip the check).
#
#   mk/epubcheck.sh FILE.epub
#   mk/epubcheck.sh --installed   only the status: 0 if installed, else 77
#
# Debian's /usr/bin/epubcheck is a link to the jar itself, which a shell
# without binfmt support for jars cannot start; java -jar always can.
set -u
[ $# -eq 1 ] || { echo "usage: mk/epubcheck.sh FILE.epub" >&2; exit 2; }
jar=${EPUBCHECK_JAR:-/usr/share/java/epubcheck.jar}
if [ -f "$jar" ] && command -v java >/dev/null 2>&1; then
    run=(java -jar "$jar")
elif command -v epubcheck >/dev/null 2>&1 &&
        epubcheck --version >/dev/null 2>&1; then
    run=(epubcheck)
fi
if [ -z "${run+set}" ]; then
    [ "$1" = --installed ] ||
        echo "epubcheck is not installed, so $1 is not checked" \
             "(sudo apt-get install epubcheck)"
    exit 77
fi
[ "$1" = --installed ] && exit 0
out=$("${run[@]}" --quiet "$1" 2>&1)
status=$?
if [ $status -ne 0 ]; then
    # One line per kind of message, with how often it came.
    printf '%s\n' "$out" | sed -E 's/\([0-9]+,[0-9-]+\)//' | sort | uniq -c |
        sort -rn | head -40
    echo "epubcheck: $1 is not a valid EPUB"
    exit 1
fi
exit 0
