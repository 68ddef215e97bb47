/* idmap.h - a small open-addressing hash map from 64-bit runtime IDs to
 * 64-bit values, used by the analysis code. */
#ifndef CLRPROBE_REPORT_IDMAP_H
#define CLRPROBE_REPORT_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct idmap {
    uint64_t *keys, *vals;
    uint8_t *state;          /* 0 empty, 1 full, 2 deleted */
    size_t cap, count, used;
} idmap;

void idmap_init(idmap *m);
void idmap_free(idmap *m);
int idmap_get(const idmap *m, uint64_t key, uint64_t *val);   /* 1 found */
int idmap_put(idmap *m, uint64_t key, uint64_t val);          /* 0 ok, -1 oom */
void idmap_del(idmap *m, uint64_t key);

#endif
