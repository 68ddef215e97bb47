/* heap_fields.c - the fields that hold an object's references
 * (heap_fields.h). */
#include "agent/heap/heap_fields.h"
#include "agent/core/service.h"
#include "api/cormetadata.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BASES 32                 /* base types followed */
#define NAME_UNITS 256               /* UTF-16 units of a field name */

void heap_fields_slots(const uint64_t *obj, size_t nwords, const uint64_t *refs, size_t nrefs, uint32_t *slots)
{
    size_t at = 1;

    for (size_t k = 0; k < nrefs; k++) {
        size_t i = at, looked = 0;
        slots[k] = 0;
        for (; looked + 1 < nwords; looked++, i++) {
            if (i >= nwords)
                i = 1;
            if (obj[i] == refs[k]) {
                slots[k] = (uint32_t)i;
                at = i + 1;
                break;
            }
        }
    }
}

void heap_fields_display_name(const char *field, char *out, size_t cap)
{
    static const char suffix[] = ">k__BackingField";
    size_t n = strlen(field), s = sizeof(suffix) - 1;

    if (cap == 0)
        return;
    if (field[0] == '<' && n > s + 1 && strcmp(field + n - s, suffix) == 0) {
        size_t len = n - s - 1;
        if (len >= cap)
            len = cap - 1;
        memcpy(out, field + 1, len);
        out[len] = '\0';
        return;
    }
    if (n >= cap)
        n = cap - 1;
    memcpy(out, field, n);
    out[n] = '\0';
}

/* The instance fields class c introduces, as heap_field records. */
static size_t name_own(profiler *p, uint32_t type, ClassID c, ModuleID mod)
{
    ULONG count = 0, got = 0;
    COR_FIELD_OFFSET *offs;
    IMetaDataImport *imp;
    size_t written = 0;

    if (FAILED(INFO(p)->GetClassLayout(p->info, c, NULL, 0, &count, NULL)) || count == 0 || count > 65536)
        return 0;
    if ((offs = calloc(count, sizeof(*offs))) == NULL)
        return 0;
    if (FAILED(INFO(p)->GetClassLayout(p->info, c, offs, count, &got, NULL)) || (imp = names_metadata(p->names, mod)) == NULL) {
        free(offs);
        return 0;
    }
    for (ULONG i = 0; i < got && i < count; i++) {
        uint16_t wname[NAME_UNITS];
        char raw[NAME_UNITS * 3], shown[NAME_UNITS * 3];
        ULONG wlen = 0;
        emit e;

        if (offs[i].ulOffset == 0xFFFFFFFFu ||
            FAILED(imp->lpVtbl->GetFieldProps(imp, offs[i].ridOfField, NULL, (LPWSTR)wname, NAME_UNITS, &wlen, NULL,
                                              NULL, NULL, NULL, NULL, NULL)))
            continue;
        names_utf16_to_utf8(wname, wlen && wlen <= NAME_UNITS ? wlen - 1 : 0, raw, sizeof(raw));
        heap_fields_display_name(raw, shown, sizeof(shown));
        if (!shown[0])
            continue;
        if (emit_begin(p, &e, TK_HEAP_FIELD)) {
            rec_heap_field_put(&e.r, &(rec_heap_field){ .type = type, .offset = offs[i].ulOffset, .name = shown });
            emit_end(&e);
            written++;
        }
    }
    imp->lpVtbl->Release(imp);
    free(offs);
    return written;
}

size_t heap_fields_name_type(profiler *p, uint32_t type, ClassID c)
{
    size_t written = 0;

    for (int depth = 0; c && depth < MAX_BASES; depth++) {
        ModuleID mod = 0;
        mdTypeDef td = 0;
        ClassID parent = 0;
        ULONG32 nargs = 0;

        if (FAILED(INFO(p)->GetClassIDInfo2(p->info, c, &mod, &td, &parent, 0, &nargs, NULL)) || !mod)
            break;
        written += name_own(p, type, c, mod);
        c = parent;
    }
    return written;
}
