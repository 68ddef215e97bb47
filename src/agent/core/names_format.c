/* names_format.c - UTF-16 conversion and type-name composition (see
 * names_format.h). */
#include "agent/core/names_format.h"

#include <stdio.h>
#include <string.h>

/* The conversion of both forms: stop_at_nul tells them apart. */
static size_t utf16_to_utf8(const uint16_t *src, size_t n, char *dst, size_t cap, int stop_at_nul)
{
    size_t o = 0;

    if (cap == 0)
        return 0;
    for (size_t i = 0; i < n && (src[i] || !stop_at_nul); i++) {
        uint32_t c = src[i];
        char tmp[4];
        size_t k;

        if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && src[i + 1] >= 0xdc00 && src[i + 1] <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (src[i + 1] - 0xdc00);
            i++;
        } else if (c >= 0xd800 && c <= 0xdfff) {
            c = 0xfffd;
        }
        if (c < 0x80) {
            tmp[0] = (char)c;
            k = 1;
        } else if (c < 0x800) {
            tmp[0] = (char)(0xc0 | (c >> 6));
            tmp[1] = (char)(0x80 | (c & 0x3f));
            k = 2;
        } else if (c < 0x10000) {
            tmp[0] = (char)(0xe0 | (c >> 12));
            tmp[1] = (char)(0x80 | ((c >> 6) & 0x3f));
            tmp[2] = (char)(0x80 | (c & 0x3f));
            k = 3;
        } else {
            tmp[0] = (char)(0xf0 | (c >> 18));
            tmp[1] = (char)(0x80 | ((c >> 12) & 0x3f));
            tmp[2] = (char)(0x80 | ((c >> 6) & 0x3f));
            tmp[3] = (char)(0x80 | (c & 0x3f));
            k = 4;
        }
        if (o + k + 1 > cap)
            break;
        memcpy(dst + o, tmp, k);
        o += k;
    }
    dst[o] = '\0';
    return o;
}

size_t names_utf16_to_utf8(const uint16_t *src, size_t n, char *dst, size_t cap)
{
    return utf16_to_utf8(src, n, dst, cap, 1);
}

size_t names_utf16_to_utf8_whole(const uint16_t *src, size_t n, char *dst, size_t cap)
{
    return utf16_to_utf8(src, n, dst, cap, 0);
}

void sb_init(sbuf *sb, char *buf, size_t cap)
{
    sb->buf = buf;
    sb->len = 0;
    sb->cap = cap;
    sb->truncated = 0;
    sb->inexact = 0;
    if (cap)
        buf[0] = '\0';
}

void sb_addn(sbuf *sb, const char *s, size_t n)
{
    if (sb->truncated || sb->cap < 4)
        return;
    if (sb->len + n + 1 > sb->cap) {
        /* keep room for "..." */
        size_t room = sb->cap - 1 - sb->len;
        room = room > 3 ? room - 3 : 0;
        while (room > 0 && ((unsigned char)s[room] & 0xc0) == 0x80)
            room--;
        memcpy(sb->buf + sb->len, s, room);
        sb->len += room;
        if (sb->len + 3 < sb->cap) {
            memcpy(sb->buf + sb->len, "...", 3);
            sb->len += 3;
        }
        sb->buf[sb->len] = '\0';
        sb->truncated = 1;
        return;
    }
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void sb_add(sbuf *sb, const char *s) { sb_addn(sb, s, strlen(s)); }
void sb_addc(sbuf *sb, char c) { sb_addn(sb, &c, 1); }

size_t names_strip_arity(const char *name, unsigned *arity)
{
    const char *tick = strrchr(name, '`');
    size_t len = strlen(name);
    unsigned a = 0;

    *arity = 0;
    if (!tick || !tick[1])
        return len;
    for (const char *p = tick + 1; *p; p++) {
        if (*p < '0' || *p > '9' || a > 1000)
            return len;
        a = a * 10 + (unsigned)(*p - '0');
    }
    *arity = a;
    return (size_t)(tick - name);
}

void names_add_type_level(sbuf *sb, const char *metadata_name, const char *const *args, unsigned nargs)
{
    unsigned arity;
    size_t base = names_strip_arity(metadata_name, &arity);

    sb_addn(sb, metadata_name, base);
    if (args ? nargs == 0 : arity == 0)
        return;
    sb_addc(sb, '<');
    if (args) {
        for (unsigned i = 0; i < nargs; i++) {
            if (i)
                sb_addc(sb, ',');
            sb_add(sb, args[i]);
        }
    } else if (arity == 1) {
        sb_addc(sb, 'T');
    } else {
        for (unsigned i = 0; i < arity; i++) {
            char t[16];
            int n = snprintf(t, sizeof(t), "%sT%u", i ? "," : "", i + 1);
            sb_addn(sb, t, (size_t)n);
        }
    }
    sb_addc(sb, '>');
}

void names_add_array_suffix(sbuf *sb, unsigned rank)
{
    sb_addc(sb, '[');
    for (unsigned i = 1; i < rank; i++)
        sb_addc(sb, ',');
    sb_addc(sb, ']');
}

const char *names_primitive(unsigned et)
{
    switch (et) {
    case 0x01: return "System.Void";
    case 0x02: return "System.Boolean";
    case 0x03: return "System.Char";
    case 0x04: return "System.SByte";
    case 0x05: return "System.Byte";
    case 0x06: return "System.Int16";
    case 0x07: return "System.UInt16";
    case 0x08: return "System.Int32";
    case 0x09: return "System.UInt32";
    case 0x0a: return "System.Int64";
    case 0x0b: return "System.UInt64";
    case 0x0c: return "System.Single";
    case 0x0d: return "System.Double";
    case 0x0e: return "System.String";
    case 0x18: return "System.IntPtr";
    case 0x19: return "System.UIntPtr";
    case 0x1c: return "System.Object";
    default: return NULL;
    }
}
