/* method_pattern.h - which methods `--trace` follows: a list of patterns
 * matched against method names as the agent writes them
 * ("Namespace.Outer+Inner<System.Int32>.Method<T>").  Grammar (docs/tracing.md):
 *
 *   list     = pattern { "," pattern }          at most MP_MAX_PATTERNS
 *   pattern  = part { "." part }                 e.g. Shop.Cart.Add, Shop.Cart.*, Shop.*
 *   part     = characters of a .NET name and "*" (any run of characters, dots included)
 *
 * Generic arguments are ignored on both sides (`List<T>.Add`, `List.Add` and
 * `List`1.Add` all read as `List.Add`), and a nested type's "+" reads as "."
 * (`Outer.Inner.M` matches `Outer+Inner.M`).  A pattern without "*" names
 * one method (every overload of it); `Type.*` every method of the type (and
 * of its nested types); `Namespace.*` everything under the namespace. */
#ifndef CLRPROBE_COMMON_METHOD_PATTERN_H
#define CLRPROBE_COMMON_METHOD_PATTERN_H

#include <stddef.h>

#define MP_MAX_PATTERNS 32
#define MP_MAX_TEXT 1024             /* the whole list, as given */

typedef struct mp_list {
    int count;
    const char *pattern[MP_MAX_PATTERNS];   /* normalized, into text */
    char text[MP_MAX_TEXT + MP_MAX_PATTERNS];
} mp_list;

/* Parses a comma-separated list (spaces around patterns allowed).  0, or -1
 * with one sentence in err naming the bad pattern and the grammar. */
int mp_parse(const char *list, mp_list *l, char *err, size_t errlen);

/* Writes name without generic arguments and with "." for "+" into out
 * (always NUL-terminated, cut at cap). */
void mp_normalize(const char *name, char *out, size_t cap);

/* The 1-based index of the first pattern that matches name (a method name
 * as the agent writes it), or 0. */
int mp_match(const mp_list *l, const char *name);

#endif
