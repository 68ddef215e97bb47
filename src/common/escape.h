/* escape.h - making untrusted strings safe to print.
 *
 * Thread names, function names, paths and command lines come from the
 * profiled program, from /proc, from a trace file or from the user's
 * configuration.  Any of them may hold terminal escape sequences, a line
 * break that forges a line of our output, text that reads in another order
 * than it is stored, or bytes that are not text at all.  Everything
 * clrprobe prints as text (the text report, collapsed stacks, pprof's
 * strings, `clrprobe ps`, and every message) passes such strings through
 * these functions, which keep printable text as it is and make the rest
 * visible and inert:
 *
 *     valid, printable UTF-8                   unchanged
 *     newline, carriage return, tab, NUL       \n  \r  \t  \0
 *     other C0 controls, DEL                   \xNN  (ESC is \x1b)
 *     C1 controls U+0080..U+009F               \u0085 style
 *     U+2028, U+2029 (line and paragraph
 *       separators), U+202A..U+202E and
 *       U+2066..U+2069 (bidi embeddings,
 *       overrides and isolates)                \u202e style
 *     bytes that are not valid UTF-8           \xNN each
 *     C0 80 (how the report stores a NUL
 *       inside a name, see report/model.h)     \0
 *
 * A backslash is left alone.  Escaping it would double the backslashes of
 * ordinary names for no gain: the result is for people to read, a forged
 * "\n" spelled with a real backslash breaks no line and moves no cursor,
 * and outputs meant to be parsed back are JSON (report/json.c), which is
 * exact.  It also makes escaping idempotent: escaped text contains only
 * printable characters, so escaping it again changes nothing (a message
 * built from an escaped value can be escaped whole).
 *
 * Nothing is ever cut short: the stream form writes the whole string, and
 * the buffer form returns the length of the whole result, as snprintf does. */
#ifndef CLRPROBE_COMMON_ESCAPE_H
#define CLRPROBE_COMMON_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at s (1..4), reading at most n bytes,
 * with its code point in *cp; 0 if s does not start one (overlong forms,
 * C0 80 among them, surrogates, > U+10FFFF, a sequence cut by n or by a
 * NUL).  This is the one UTF-8 validator of the report and the messages. */
int utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

/* Whether code point cp is one that escaping hides (C0, DEL, C1, the
 * separators and bidi controls above); JSON escapes the same ones. */
int esc_is_hidden(uint32_t cp);

/* Writes s[0..n) escaped to out.  extra lists printable ASCII characters
 * to write as \xNN too (";" for collapsed stacks, where it separates
 * frames), or is NULL.  Returns the number of bytes written. */
size_t esc_write(FILE *out, const char *s, size_t n, const char *extra);

/* esc_write of the NUL-terminated s, without extra characters. */
size_t esc_puts(FILE *out, const char *s);

/* Escapes s[0..n) into dst.  When cap > 0, dst is NUL-terminated, and
 * when it is too small the text stops before the first character or
 * escape that does not fit (never inside one).  Returns the length of the
 * whole escaped text: a result >= cap means dst holds only its start. */
size_t esc_buf(char *dst, size_t cap, const char *s, size_t n, const char *extra);

/* The escaped copy of the NUL-terminated s, malloc'd (NULL: out of memory). */
char *esc_dup(const char *s);

#endif
