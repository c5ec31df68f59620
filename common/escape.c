/* escape.c - nd_escape of nd_internal.h: text read from a file, made
 * safe to quote in a message. A hostile file's bytes must not reach the
 * terminal raw, where an escape sequence can clear the screen, retitle
 * the window or hide the rest of the message; so every byte that is not
 * printable ASCII is written as \xNN, and a backslash as \\, as Python's
 * repr() of bytes writes them. */
#include <stdio.h>
#include <string.h>

#include "nd_internal.h"

/* Writes byte b as it is shown into piece; returns its length. */
static size_t shown(unsigned char b, char piece[5])
{
    if (b == '\\')
        return (size_t)snprintf(piece, 5, "\\\\");
    if (b >= 0x20 && b < 0x7f) {
        piece[0] = (char)b;
        piece[1] = '\0';
        return 1;
    }
    return (size_t)snprintf(piece, 5, "\\x%02x", b);
}

const char *nd_escape(char *out, size_t size, const void *text, size_t n)
{
    if (size == 0)
        return out;
    const unsigned char *bytes = text;
    char piece[5];
    size_t whole = 0;
    for (size_t i = 0; i < n; i++)
        whole += shown(bytes[i], piece);
    /* too long: whole pieces, then "..." */
    size_t room = whole < size ? size - 1 : size > 4 ? size - 4 : 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = shown(bytes[i], piece);
        if (at + len > room)
            break;
        memcpy(out + at, piece, len);
        at += len;
    }
    if (whole >= size && size > 4) {
        memcpy(out + at, "...", 3);
        at += 3;
    }
    out[at] = '\0';
    return out;
}
