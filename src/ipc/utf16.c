/* utf16.c - UTF-8 <-> UTF-16LE for the strings of the diagnostics protocol
 * (paths, command lines, versions).  Strict on the way out (a path that is
 * not valid UTF-8 could not be converted back by the runtime), forgiving on
 * the way in (unpaired surrogates become U+FFFD). */
#include "ipc/ipc_internal.h"

/* Decodes one UTF-8 character at s: its length, or 0 when invalid. */
static int utf8_decode(const unsigned char *s, uint32_t *cp)
{
    uint32_t c = s[0], min;
    int n, i;

    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if ((c & 0xE0) == 0xC0) {
        n = 2;
        c &= 0x1F;
        min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        c &= 0x0F;
        min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        c &= 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)      /* also stops at the NUL */
            return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

long ipc_utf8_to_utf16le(const char *s, uint8_t *out, size_t cap_units)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0;
    uint32_t cp;
    int len;

    while (*p) {
        len = utf8_decode(p, &cp);
        if (!len)
            return -1;
        p += len;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            if (out && n + 2 <= cap_units) {
                ipc_put_u16(out + 2 * n, (uint16_t)(0xD800 | (cp >> 10)));
                ipc_put_u16(out + 2 * n + 2, (uint16_t)(0xDC00 | (cp & 0x3FF)));
            }
            n += 2;
        } else {
            if (out && n + 1 <= cap_units)
                ipc_put_u16(out + 2 * n, (uint16_t)cp);
            n += 1;
        }
    }
    return (long)n;
}

/* Appends the UTF-8 form of cp: *need counts what the whole conversion
 * needs; the bytes go to out[*written..] while they fit before cap-1, and
 * once one character does not fit no later one is written either. */
static void utf8_append(uint32_t cp, char *out, size_t cap, size_t *need, size_t *written)
{
    unsigned char b[4];
    int n, i;

    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xC0 | (cp >> 6));
        b[1] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | (cp >> 12));
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | (cp >> 18));
        b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    if (*written == *need && cap > 0 && *need + (size_t)n <= cap - 1) {
        for (i = 0; i < n; i++)
            out[*written + (size_t)i] = (char)b[i];
        *written += (size_t)n;
    }
    *need += (size_t)n;
}

size_t ipc_utf16le_to_utf8(const uint8_t *in, size_t nunits, char *out, size_t cap)
{
    size_t i, need = 0, written = 0;

    for (i = 0; i < nunits; i++) {
        uint32_t u = ipc_get_u16(in + 2 * i), cp = u;

        if (u == 0)
            break;
        if (u >= 0xD800 && u <= 0xDBFF && i + 1 < nunits) {
            uint32_t lo = ipc_get_u16(in + 2 * i + 2);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                i++;
            } else {
                cp = 0xFFFD;
            }
        } else if (u >= 0xD800 && u <= 0xDFFF) {
            cp = 0xFFFD;
        }
        utf8_append(cp, out, cap, &need, &written);
    }
    if (cap > 0)
        out[written] = '\0';
    return need;
}
