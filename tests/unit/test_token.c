/* test_token.c - serve's bearer token check (src/serve/token.c): only
 * "Bearer " and the exact token pass. */
#include "unit.h"
#include "serve/token.h"

TEST(serve_token_matches_only_the_exact_bearer)
{
    const char *t = "0123456789abcdef0123456789abcdef";

    CHECK(token_matches(t, "Bearer 0123456789abcdef0123456789abcdef"));
    CHECK(!token_matches(t, NULL));
    CHECK(!token_matches(t, ""));
    CHECK(!token_matches(t, "Bearer "));
    CHECK(!token_matches(t, "Bearer 0123456789abcdef0123456789abcde"));     /* one short */
    CHECK(!token_matches(t, "Bearer 0123456789abcdef0123456789abcdef0"));   /* one long */
    CHECK(!token_matches(t, "Bearer 1123456789abcdef0123456789abcdef"));    /* first differs */
    CHECK(!token_matches(t, "Bearer 0123456789abcdef0123456789abcdee"));    /* last differs */
    CHECK(!token_matches(t, "bearer 0123456789abcdef0123456789abcdef"));
    CHECK(!token_matches(t, "Basic 0123456789abcdef0123456789abcdef"));
    CHECK(!token_matches(t, "Bearer  0123456789abcdef0123456789abcdef"));
}
