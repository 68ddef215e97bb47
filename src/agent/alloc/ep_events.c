/* ep_events.c - reading the runtime's EventPipe payloads (ep_events.h). */
#include "agent/alloc/ep_events.h"

#include <string.h>

typedef struct cursor {
    const uint8_t *p;
    size_t left;
    int bad;
} cursor;

static uint64_t take(cursor *c, size_t n)
{
    uint64_t v = 0;
    if (c->bad || c->left < n) {
        c->bad = 1;
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    c->left -= n;
    return v;
}

/* A NUL-terminated UTF-16 string: its start and length in units. */
static void take_utf16(cursor *c, const uint8_t **s, size_t *units)
{
    size_t i;
    for (i = 0; i + 1 < c->left; i += 2)
        if (c->p[i] == 0 && c->p[i + 1] == 0)
            break;
    if (c->bad || i + 1 >= c->left) {
        c->bad = 1;
        return;
    }
    *s = c->p;
    *units = i / 2;
    c->p += i + 2;
    c->left -= i + 2;
}

int ep_parse_allocation_sampled(const uint8_t *data, size_t len, ep_alloc *out)
{
    cursor c = { data, len, 0 };

    memset(out, 0, sizeof(*out));
    out->kind = (uint32_t)take(&c, 4);
    take(&c, 2);
    out->class_id = take(&c, 8);
    take_utf16(&c, &out->type_utf16, &out->type_len);
    out->address = take(&c, 8);
    out->size = take(&c, 8);
    out->amount = take(&c, 8);
    return c.bad ? -1 : 0;
}

int ep_parse_allocation_tick(const uint8_t *data, size_t len, uint32_t version, ep_alloc *out)
{
    cursor c = { data, len, 0 };

    memset(out, 0, sizeof(*out));
    if (version < 2)
        return -1;
    take(&c, 4);
    out->kind = (uint32_t)take(&c, 4);
    take(&c, 2);
    out->amount = take(&c, 8);
    out->class_id = take(&c, 8);
    take_utf16(&c, &out->type_utf16, &out->type_len);
    if (version >= 3) {
        take(&c, 4);
        out->address = take(&c, 8);
    }
    if (version >= 4)
        out->size = take(&c, 8);
    return c.bad ? -1 : 0;
}

int ep_parse_contention_start(const uint8_t *data, size_t len, ep_contention_start *out)
{
    cursor c = { data, len, 0 };

    memset(out, 0, sizeof(*out));
    out->flags = (uint32_t)take(&c, 1);
    if (c.bad)
        return -1;
    if (len < 27)
        return 0;                       /* an earlier version: flags only */
    take(&c, 2);
    out->lock_id = take(&c, 8);
    out->object = take(&c, 8);
    out->owner_thread = take(&c, 8);
    return c.bad ? -1 : 0;
}

int ep_parse_contention_stop(const uint8_t *data, size_t len, uint64_t *duration_ns)
{
    cursor c = { data, len, 0 };
    uint64_t bits;
    double d;

    *duration_ns = 0;
    take(&c, 1);
    take(&c, 2);
    if (c.bad)
        return -1;
    if (c.left < 8)
        return 0;                       /* an earlier version: no duration */
    bits = take(&c, 8);
    memcpy(&d, &bits, sizeof(d));
    if (d > 0 && d < 1e18)
        *duration_ns = (uint64_t)(d + 0.5);
    return 0;
}
