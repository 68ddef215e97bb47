/* test_hash.c - the one FNV-1a (common/hash.h) against the published test
 * vectors: a wrong offset basis or prime changes every one of them. */
#include "unit.h"
#include "common/hash.h"

TEST(fnv1a_matches_the_published_vectors)
{
    CHECK_EQ(cp_fnv1a_str(""), 0xcbf29ce484222325ULL);
    CHECK_EQ(cp_fnv1a_str("a"), 0xaf63dc4c8601ec8cULL);
    CHECK_EQ(cp_fnv1a_str("foobar"), 0x85944171f73967e8ULL);
}

TEST(fnv1a_continues_a_hash_over_more_text)
{
    CHECK_EQ(cp_fnv1a_str_from(cp_fnv1a_str("foo"), "bar"), cp_fnv1a_str("foobar"));
    CHECK_EQ(cp_fnv1a_step(CP_FNV1A_BASIS, 'a'), cp_fnv1a_str("a"));
    CHECK(cp_fnv1a_str("ab") != cp_fnv1a_str("ba"));
}
