/* identity.c - the profiler's CLSIDs and their string form (identity.h). */
#include "common/identity.h"

/* {8C5F2C71-3A9E-4E1B-9F4D-2B7A6C1D0E53} */
const GUID CLSID_clrprobe = { 0x8C5F2C71, 0x3A9E, 0x4E1B, { 0x9F, 0x4D, 0x2B, 0x7A, 0x6C, 0x1D, 0x0E, 0x53 } };
/* {8C5F2C72-3A9E-4E1B-9F4D-2B7A6C1D0E53} */
const GUID CLSID_clrprobe_notification = { 0x8C5F2C72, 0x3A9E, 0x4E1B,
                                           { 0x9F, 0x4D, 0x2B, 0x7A, 0x6C, 0x1D, 0x0E, 0x53 } };

/* Writes the low 4*digits bits of v as that many upper-case hex digits. */
static char *put_hex(char *p, uint32_t v, int digits)
{
    static const char hex[] = "0123456789ABCDEF";

    for (int i = digits - 1; i >= 0; i--)
        *p++ = hex[(v >> (4 * i)) & 0xF];
    return p;
}

void cp_guid_format(const GUID *g, char out[CP_GUID_STRING_SIZE])
{
    char *p = out;

    *p++ = '{';
    p = put_hex(p, g->Data1, 8);
    *p++ = '-';
    p = put_hex(p, g->Data2, 4);
    *p++ = '-';
    p = put_hex(p, g->Data3, 4);
    *p++ = '-';
    for (int i = 0; i < 8; i++) {
        if (i == 2)
            *p++ = '-';
        p = put_hex(p, g->Data4[i], 2);
    }
    *p++ = '}';
    *p = '\0';
}
