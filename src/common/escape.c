/* escape.c - escaping untrusted strings for printing (see escape.h for
 * what becomes what, and why a backslash stays as it is). */
#include "common/escape.h"

#include <stdlib.h>
#include <string.h>

int utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    int len;
    uint32_t c;

    if (n == 0)
        return 0;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if ((s[0] & 0xe0) == 0xc0) { len = 2; c = s[0] & 0x1f; }
    else if ((s[0] & 0xf0) == 0xe0) { len = 3; c = s[0] & 0x0f; }
    else if ((s[0] & 0xf8) == 0xf0) { len = 4; c = s[0] & 0x07; }
    else return 0;
    if ((size_t)len > n)
        return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)      /* also stops at a NUL */
            return 0;
        c = c << 6 | (s[i] & 0x3f);
    }
    if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
        c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

/* Code points that are valid but must not reach a terminal as they are:
 * controls, and those that break lines or reorder text. */
int esc_is_hidden(uint32_t c)
{
    return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
           (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

static const char hexdigits[] = "0123456789abcdef";

/* "\xNN" for byte b into tmp. */
static size_t hex_escape(unsigned char b, char *tmp)
{
    tmp[0] = '\\';
    tmp[1] = 'x';
    tmp[2] = hexdigits[b >> 4];
    tmp[3] = hexdigits[b & 15];
    return 4;
}

/* One step of escaping the text at s (n > 0 bytes left).  Returns how many
 * input bytes the step covers; *esc_len is 0 when they pass unchanged,
 * else the length of their escape, written to tmp (at least 8 bytes). */
static size_t step(const unsigned char *s, size_t n, const char *extra, char *tmp, size_t *esc_len)
{
    uint32_t c;
    int len = utf8_next(s, n, &c);

    if (len == 0) {
        if (n >= 2 && s[0] == 0xc0 && s[1] == 0x80) {      /* the report's NUL */
            memcpy(tmp, "\\0", 2);
            *esc_len = 2;
            return 2;
        }
        *esc_len = hex_escape(s[0], tmp);                  /* not UTF-8 */
        return 1;
    }
    if (len == 1 && c != 0 && extra && strchr(extra, (int)c)) {
        *esc_len = hex_escape((unsigned char)c, tmp);
        return 1;
    }
    if (!esc_is_hidden(c)) {
        *esc_len = 0;
        return (size_t)len;
    }
    switch (c) {
    case '\n': memcpy(tmp, "\\n", 2); *esc_len = 2; break;
    case '\r': memcpy(tmp, "\\r", 2); *esc_len = 2; break;
    case '\t': memcpy(tmp, "\\t", 2); *esc_len = 2; break;
    case 0:    memcpy(tmp, "\\0", 2); *esc_len = 2; break;
    default:
        if (c < 0x80) {
            *esc_len = hex_escape((unsigned char)c, tmp);
        } else {                                           /* C1, separators, bidi: all < U+10000 */
            tmp[0] = '\\';
            tmp[1] = 'u';
            for (int i = 0; i < 4; i++)
                tmp[2 + i] = hexdigits[(c >> (12 - 4 * i)) & 15];
            *esc_len = 6;
        }
        break;
    }
    return (size_t)len;
}

size_t esc_write(FILE *out, const char *str, size_t n, const char *extra)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, run = 0, written = 0;    /* s[run..i) passes unchanged, not yet written */
    char tmp[8];

    while (i < n) {
        size_t esc_len, used = step(s + i, n - i, extra, tmp, &esc_len);
        if (esc_len == 0) {
            i += used;
            continue;
        }
        fwrite(s + run, 1, i - run, out);
        fwrite(tmp, 1, esc_len, out);
        written += i - run + esc_len;
        i += used;
        run = i;
    }
    fwrite(s + run, 1, i - run, out);
    return written + (i - run);
}

size_t esc_puts(FILE *out, const char *s)
{
    return esc_write(out, s, strlen(s), NULL);
}

size_t esc_buf(char *dst, size_t cap, const char *str, size_t n, const char *extra)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, total = 0, o = 0;
    int full = cap == 0;                   /* stopped writing: something did not fit */
    char tmp[8];

    while (i < n) {
        size_t esc_len, used = step(s + i, n - i, extra, tmp, &esc_len);
        const char *piece = esc_len ? tmp : (const char *)s + i;
        size_t len = esc_len ? esc_len : used;
        if (!full && o + len < cap) {
            memcpy(dst + o, piece, len);
            o += len;
        } else {
            full = 1;
        }
        total += len;
        i += used;
    }
    if (cap)
        dst[o] = '\0';
    return total;
}

char *esc_dup(const char *s)
{
    size_t n = strlen(s), len = esc_buf(NULL, 0, s, n, NULL);
    char *copy = malloc(len + 1);

    if (copy)
        esc_buf(copy, len + 1, s, n, NULL);
    return copy;
}
