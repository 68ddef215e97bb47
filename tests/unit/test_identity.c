/* test_identity.c - the profiler's CLSID (src/common/identity.c): its
 * string form, as `clrprobe run` hands it to the runtime, is the one the
 * documentation and the end-to-end scripts spell out, and cp_guid_format
 * writes the registry form of any GUID. */
#include "unit.h"
#include "common/identity.h"
#include "api/corprof.h"

TEST(identity_clsid_string_matches_guid)
{
    char s[CP_GUID_STRING_SIZE + 1];

    memset(s, 'x', sizeof(s));
    cp_guid_format(&CLSID_clrprobe, s);
    CHECK_STR(s, "{8C5F2C71-3A9E-4E1B-9F4D-2B7A6C1D0E53}");
    CHECK_EQ(strlen(s), CP_GUID_STRING_SIZE - 1);
    CHECK_EQ(s[CP_GUID_STRING_SIZE], 'x');          /* nothing written past the NUL */
    cp_guid_format(&CLSID_clrprobe_notification, s);
    CHECK_STR(s, "{8C5F2C72-3A9E-4E1B-9F4D-2B7A6C1D0E53}");
}

TEST(identity_guid_format)
{
    char s[CP_GUID_STRING_SIZE];
    const GUID all = { 0xFFFFFFFFu, 0xFFFF, 0xFFFF, { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF } };
    const GUID zero = { 0, 0, 0, { 0, 0, 0, 0, 0, 0, 0, 0 } };

    cp_guid_format(&IID_IUnknown, s);
    CHECK_STR(s, "{00000000-0000-0000-C000-000000000046}");
    cp_guid_format(&IID_ICorProfilerCallback11, s);
    CHECK_STR(s, "{42350846-AAED-47F7-B128-FD0C98881CDE}");
    cp_guid_format(&all, s);
    CHECK_STR(s, "{FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF}");
    cp_guid_format(&zero, s);
    CHECK_STR(s, "{00000000-0000-0000-0000-000000000000}");
}
