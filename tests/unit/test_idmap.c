/* test_idmap.c - the hash tables (common/idmap.h): idmap's puts, gets,
 * deletions, walking and clearing; idindex finds the caller's entries by their keys,
 * through growth, when hashes collide, and never confuses two keys whose
 * hashes are equal. */
#include "unit.h"
#include "common/hash.h"
#include "common/idmap.h"

#include <stdlib.h>
#include <string.h>

TEST(idmap_put_get_del)
{
    idmap m;
    uint64_t v = 0;

    idmap_init(&m);
    CHECK_EQ(idmap_get(&m, 1, &v), 0);
    for (uint64_t k = 0; k < 5000; k++)
        CHECK_EQ(idmap_put(&m, k * 0x10000, k + 1), 0);
    for (uint64_t k = 0; k < 5000; k += 2)
        idmap_del(&m, k * 0x10000);
    CHECK_EQ(m.count, 2500);
    CHECK_EQ(idmap_get(&m, 2 * 0x10000, &v), 0);
    CHECK_EQ(idmap_get(&m, 4999 * 0x10000, &v), 1);
    CHECK_EQ(v, 5000);
    CHECK_EQ(idmap_put(&m, 4999 * 0x10000, 7), 0);         /* replaces */
    CHECK_EQ(idmap_get(&m, 4999 * 0x10000, &v), 1);
    CHECK_EQ(v, 7);
    CHECK_EQ(m.count, 2500);
    idmap_free(&m);
}

/* Walking finds every entry once (not a deleted one); clearing empties the
 * map and keeps its memory, and the map works on. */
TEST(idmap_walk_and_clear)
{
    idmap m;
    uint64_t k, v, sum = 0, n = 0;
    size_t cap;

    idmap_init(&m);
    for (k = 1; k <= 300; k++)
        CHECK_EQ(idmap_put(&m, k << 20, k), 0);
    idmap_del(&m, 7 << 20);
    CHECK_EQ(idmap_at(&m, m.cap, NULL, NULL), 0);
    for (size_t i = 0; i < m.cap; i++) {
        if (!idmap_at(&m, i, &k, &v))
            continue;
        CHECK_EQ(k, v << 20);
        sum += v;
        n++;
    }
    CHECK_EQ(n, 299);
    CHECK_EQ(sum, 300 * 301 / 2 - 7);
    cap = m.cap;
    idmap_clear(&m);
    CHECK_EQ(m.count, 0);
    CHECK_EQ(m.cap, cap);
    CHECK_EQ(idmap_get(&m, 1 << 20, NULL), 0);
    CHECK_EQ(idmap_put(&m, 5, 6), 0);
    CHECK_EQ(idmap_get(&m, 5, &v), 1);
    CHECK_EQ(v, 6);
    idmap_free(&m);
}

/* Entries are strings in an array; the hash is given by the test. */
typedef struct str_key {
    char **names;
    const char *name;
} str_key;

static int same_str(const void *ctx, uint32_t entry)
{
    const str_key *k = ctx;
    return strcmp(k->names[entry], k->name) == 0;
}

static void check_index(uint64_t (*hash)(const char *), size_t n, int reserve)
{
    idindex *x = NULL;
    char **names = calloc(n, sizeof(*names)), miss[32];
    str_key key = { names, NULL };

    CHECK(names != NULL);
    if (!names)
        return;
    if (reserve)
        CHECK_EQ(idindex_reserve(&x, n), 0);
    key.name = "absent";
    CHECK_EQ(idindex_find(x, hash("absent"), same_str, &key), -1);
    for (size_t i = 0; i < n; i++) {
        names[i] = malloc(32);
        snprintf(names[i], 32, "name %zu", i);
        key.name = names[i];
        CHECK_EQ(idindex_find(x, hash(names[i]), same_str, &key), -1);
        CHECK_EQ(idindex_add(&x, hash(names[i]), (uint32_t)i), 0);
    }
    for (size_t i = 0; i < n; i++) {
        key.name = names[i];
        CHECK_EQ(idindex_find(x, hash(names[i]), same_str, &key), (long)i);
    }
    snprintf(miss, sizeof(miss), "name %zu", n);
    key.name = miss;
    CHECK_EQ(idindex_find(x, hash(miss), same_str, &key), -1);
    CHECK_EQ(idindex_add(&x, 1, UINT32_MAX), -1);          /* entries are below UINT32_MAX */
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    idindex_free(x);
}

static uint64_t fnv(const char *s)
{
    return cp_fnv1a_str(s);
}

static uint64_t same_hash(const char *s)
{
    (void)s;
    return 42;
}

static uint64_t few_hashes(const char *s)
{
    return fnv(s) % 3;
}

TEST(idindex_finds_entries_through_growth)
{
    check_index(fnv, 100000, 0);
    check_index(fnv, 100000, 1);
    check_index(fnv, 1, 0);
}

TEST(idindex_tells_keys_with_equal_hashes_apart)
{
    check_index(same_hash, 300, 0);
    check_index(few_hashes, 2000, 0);
}
