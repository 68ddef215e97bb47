/* heap_codec.c - encoder and decoder of the heap snapshot's dense entries
 * (heap_codec.h). */
#include "trace/heap_codec.h"

size_t heap_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static size_t varint_len(uint64_t v)
{
    size_t n = 1;

    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

void heap_enc_init(heap_enc *e, uint8_t *buf, size_t cap)
{
    e->buf = buf;
    e->cap = cap;
    e->len = 0;
    e->prev = 0;
    e->count = 0;
}

int heap_enc_object(heap_enc *e, uint64_t addr, uint32_t type, uint64_t size, uint32_t flags,
                    const uint64_t *refs, size_t nrefs, size_t *fromp)
{
    return heap_enc_object_slots(e, addr, type, size, flags, refs, NULL, nrefs, fromp);
}

int heap_enc_object_slots(heap_enc *e, uint64_t addr, uint32_t type, uint64_t size, uint32_t flags,
                          const uint64_t *refs, const uint32_t *slots, size_t nrefs, size_t *fromp)
{
    size_t from = *fromp;
    uint8_t head[HEAP_ENTRY_HEAD_MAX];
    size_t hlen = 0, room, fit = 0, bytes = 0, k;
    int cont = from > 0;

    flags &= ~(HEAP_OBJ_CONT | HEAP_OBJ_SLOTS);
    if (cont)
        flags = HEAP_OBJ_CONT;
    if (slots)
        flags |= HEAP_OBJ_SLOTS;
    hlen += heap_put_varint(head + hlen, flags);
    hlen += heap_put_varint(head + hlen, heap_zigzag((int64_t)(addr - e->prev)));
    if (!cont) {
        hlen += heap_put_varint(head + hlen, type);
        hlen += heap_put_varint(head + hlen, size);
    }
    if (e->cap - e->len < hlen + HEAP_VARINT_MAX)
        return 0;
    room = e->cap - e->len - hlen - HEAP_VARINT_MAX;   /* (the nrefs varint's worst case) */
    for (k = from; k < nrefs; k++) {
        size_t n = varint_len(heap_zigzag((int64_t)(refs[k] - addr))) + (slots ? varint_len(slots[k]) : 0);
        if (bytes + n > room)
            break;
        bytes += n;
        fit++;
    }
    if (fit == 0 && from < nrefs)
        return 0;                        /* an entry without a reference it has: wait for room */
    for (size_t i = 0; i < hlen; i++)
        e->buf[e->len++] = head[i];
    e->len += heap_put_varint(e->buf + e->len, fit);
    for (k = from; k < from + fit; k++) {
        e->len += heap_put_varint(e->buf + e->len, heap_zigzag((int64_t)(refs[k] - addr)));
        if (slots)
            e->len += heap_put_varint(e->buf + e->len, slots[k]);
    }
    e->prev = addr;
    e->count++;
    *fromp = from + fit;
    return 1;
}

int heap_enc_root(heap_enc *e, uint32_t kind, uint32_t flags, uint64_t object, uint64_t id)
{
    uint8_t tmp[4 * HEAP_VARINT_MAX];
    size_t n = 0;

    n += heap_put_varint(tmp + n, kind);
    n += heap_put_varint(tmp + n, flags);
    n += heap_put_varint(tmp + n, heap_zigzag((int64_t)(object - e->prev)));
    n += heap_put_varint(tmp + n, id);
    if (e->cap - e->len < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        e->buf[e->len++] = tmp[i];
    e->prev = object;
    e->count++;
    return 1;
}

void heap_dec_init(heap_dec *d, const uint8_t *data, size_t len)
{
    d->p = data;
    d->end = data ? data + len : data;
    d->prev = 0;
}

/* One varint: 0, or -1 when it runs past the end or past 10 bytes. */
static int get_varint(heap_dec *d, uint64_t *out)
{
    uint64_t v = 0;

    for (unsigned shift = 0; shift < 70; shift += 7) {
        uint8_t b;
        if (d->p >= d->end)
            return -1;
        b = *d->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

int heap_dec_object(heap_dec *d, heap_obj *o, uint64_t *refs, size_t max)
{
    return heap_dec_object_slots(d, o, refs, NULL, max);
}

int heap_dec_object_slots(heap_dec *d, heap_obj *o, uint64_t *refs, uint32_t *slots, size_t max)
{
    uint64_t flags, delta, type = 0, size = 0, nrefs, r, slot = 0;

    if (d->p >= d->end)
        return 0;
    if (get_varint(d, &flags) < 0 || (flags & ~(uint64_t)HEAP_OBJ_KNOWN) || get_varint(d, &delta) < 0)
        return -1;                           /* (a flag not known: what follows may be laid out otherwise) */
    if (!(flags & HEAP_OBJ_CONT) && (get_varint(d, &type) < 0 || type > 0xffffffffu || get_varint(d, &size) < 0))
        return -1;
    if (get_varint(d, &nrefs) < 0 || nrefs > max || nrefs > (uint64_t)(d->end - d->p))
        return -1;
    o->flags = (uint32_t)flags;
    o->addr = d->prev + (uint64_t)heap_unzigzag(delta);
    o->type = (uint32_t)type;
    o->size = size;
    o->nrefs = (size_t)nrefs;
    for (size_t k = 0; k < o->nrefs; k++) {
        if (get_varint(d, &r) < 0)
            return -1;
        refs[k] = o->addr + (uint64_t)heap_unzigzag(r);
        if ((flags & HEAP_OBJ_SLOTS) && (get_varint(d, &slot) < 0 || slot > 0xffffffffu))
            return -1;
        if (slots)
            slots[k] = (uint32_t)slot;
    }
    d->prev = o->addr;
    return 1;
}

int heap_dec_root(heap_dec *d, heap_root *r)
{
    uint64_t kind, flags, delta, id;

    if (d->p >= d->end)
        return 0;
    if (get_varint(d, &kind) < 0 || get_varint(d, &flags) < 0 || get_varint(d, &delta) < 0 ||
        get_varint(d, &id) < 0 || kind > 0xffffffffu || flags > 0xffffffffu)
        return -1;
    r->kind = (uint32_t)kind;
    r->flags = (uint32_t)flags;
    r->object = d->prev + (uint64_t)heap_unzigzag(delta);
    r->id = id;
    d->prev = r->object;
    return 1;
}
