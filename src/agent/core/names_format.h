/* names_format.h - the pure part of naming: UTF-16 to UTF-8, a bounded
 * string builder, and composing type names the way .NET engineers read
 * them: Namespace.Outer+Inner<System.Int32,System.String>, arrays as
 * Elem[] / Elem[,].  No runtime calls here, so it is unit tested directly. */
#ifndef CLRPROBE_AGENT_NAMES_FORMAT_H
#define CLRPROBE_AGENT_NAMES_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* Converts n UTF-16 units (stops early at a NUL) to NUL-terminated UTF-8 in
 * dst; unpaired surrogates become U+FFFD.  Returns the byte length.  For
 * the runtime's NUL-terminated buffers. */
size_t names_utf16_to_utf8(const uint16_t *src, size_t n, char *dst, size_t cap);

/* The same for a string of exactly n units that may hold NULs (a thread
 * name the program set): each U+0000 becomes a NUL byte, so the result is
 * dst[0..length) and must be written with its length, not strlen.  It is
 * NUL-terminated as well.  Stops early only when dst is full. */
size_t names_utf16_to_utf8_whole(const uint16_t *src, size_t n, char *dst, size_t cap);

/* A string builder over a caller's buffer; stops adding when full and marks
 * the result truncated (it then ends in "..."). */
typedef struct sbuf {
    char *buf;
    size_t len, cap;
    int truncated;           /* ran out of room */
    int inexact;             /* a part is missing or cut: fine to show, not to cache */
} sbuf;

void sb_init(sbuf *sb, char *buf, size_t cap);
void sb_addn(sbuf *sb, const char *s, size_t n);
void sb_add(sbuf *sb, const char *s);
void sb_addc(sbuf *sb, char c);

/* Length of name without its generic arity suffix ("List`1" -> 4), and the
 * arity in *arity (0 if none). */
size_t names_strip_arity(const char *name, unsigned *arity);

/* Appends one level of a type name (its metadata name with the arity
 * stripped) followed by <args> when it has generic parameters.  args holds
 * the argument names for this level; when NULL (the exact instantiation is
 * unknown) placeholders T or T1..Tn are printed. */
void names_add_type_level(sbuf *sb, const char *metadata_name, const char *const *args, unsigned nargs);

/* Appends "[]" for rank 1, "[,]" for rank 2, ... */
void names_add_array_suffix(sbuf *sb, unsigned rank);

/* Full name of a primitive CorElementType (ELEMENT_TYPE_I4 -> "System.Int32"),
 * or NULL for non-primitives. */
const char *names_primitive(unsigned element_type);

#endif
