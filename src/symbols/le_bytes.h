/* le_bytes.h - what the PE reader (pe_debug.c) and the PDB reader (pdb.c)
 * share: little-endian reads of bytes already bounds-checked by the
 * caller, and their error messages into a caller's buffer. */
#ifndef CLRPROBE_SYMBOLS_LE_BYTES_H
#define CLRPROBE_SYMBOLS_LE_BYTES_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static inline uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t rd64(const uint8_t *p)
{
    return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* printf into err (errlen bytes; nothing when err is NULL). */
static inline void set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || !errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

#endif
