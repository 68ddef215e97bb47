/* test_ipc.c - the diagnostics IPC client: exact request bytes, reply and
 * ProcessInfo(2) decoding against short, lying and hostile input, HRESULT
 * sentences, UTF-8/UTF-16, the /proc parsers, and the transport against a
 * fake diagnostics server on a real socket (timeouts, truncated replies,
 * the ProcessInfo fallback). */
#include "unit.h"
#include "ipc/ipc.h"
#include "ipc/ipc_internal.h"
#include "api/corprof.h"
#include "common/identity.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A server reply: header + payload. */
static size_t make_reply(uint8_t *buf, uint8_t id, const uint8_t *payload, size_t n)
{
    ipc_encode_header(buf, (uint16_t)(IPC_HEADER_SIZE + n), IPC_SET_SERVER, id);
    if (n)
        memcpy(buf + IPC_HEADER_SIZE, payload, n);
    return IPC_HEADER_SIZE + n;
}

static size_t make_hr_reply(uint8_t *buf, uint8_t id, uint32_t hr)
{
    uint8_t p[4] = { (uint8_t)hr, (uint8_t)(hr >> 8), (uint8_t)(hr >> 16), (uint8_t)(hr >> 24) };
    return make_reply(buf, id, p, 4);
}

/* A ProcessInfo(2) payload with the given strings (NULL = stop there). */
static size_t make_info_payload(uint8_t *buf, size_t cap, uint64_t pid, const char *const *strings, int n)
{
    size_t pos = 24;
    int i;

    for (i = 0; i < 8; i++)
        buf[i] = (uint8_t)(pid >> (8 * i));
    for (i = 0; i < 16; i++)
        buf[8 + i] = (uint8_t)(0xA0 + i);
    for (i = 0; i < n; i++) {
        long w = ipc_encode_string(buf + pos, cap - pos, strings[i]);
        if (w < 0)
            return 0;
        pos += (size_t)w;
    }
    return pos;
}

/* ------------------------------------------------------------------------
 * Requests.
 * ------------------------------------------------------------------------ */

TEST(ipc_attach_message_exact_bytes)
{
    static const uint8_t expected[] = {
        'D', 'O', 'T', 'N', 'E', 'T', '_', 'I', 'P', 'C', '_', 'V', '1', 0,   /* magic */
        67, 0,                        /* size = 20 + 4 + 16 + 4 + 8*2 + 4 + 3 */
        0x03, 0x01,                   /* Profiler / AttachProfiler */
        0, 0,                         /* reserved */
        0x10, 0x27, 0, 0,             /* attach timeout 10000 ms */
        0x71, 0x2C, 0x5F, 0x8C,       /* CLSID_clrprobe (common/identity.c): Data1 LE */
        0x9E, 0x3A,                   /* Data2 LE */
        0x1B, 0x4E,                   /* Data3 LE */
        0x9F, 0x4D, 0x2B, 0x7A, 0x6C, 0x1D, 0x0E, 0x53,   /* Data4 as is */
        8, 0, 0, 0,                   /* 7 units + the NUL */
        '/', 0, 'a', 0, '/', 0, 0xE9, 0, '.', 0, 's', 0, 'o', 0, 0, 0,
        3, 0, 0, 0,                   /* client data size */
        'k', '=', 'v',
    };
    uint8_t buf[256];
    long n = ipc_build_attach_profiler(buf, sizeof(buf), 10000, &CLSID_clrprobe, "/a/\xc3\xa9.so", "k=v", 3);

    CHECK_EQ(n, (long)sizeof(expected));
    CHECK(n == (long)sizeof(expected) && memcmp(buf, expected, sizeof(expected)) == 0);
    for (size_t i = 0; n == (long)sizeof(expected) && i < sizeof(expected); i++)
        if (buf[i] != expected[i]) {
            unit_fail(__FILE__, __LINE__, "byte %zu: 0x%02X != 0x%02X", i, buf[i], expected[i]);
            break;
        }
}

TEST(ipc_attach_message_edge_cases)
{
    uint8_t buf[IPC_MAX_MESSAGE + 16];
    char *long_path;
    long n;

    /* no client data: size field 0, nothing after it */
    n = ipc_build_attach_profiler(buf, sizeof(buf), 0, &CLSID_clrprobe, "/x", NULL, 0);
    CHECK_EQ(n, 20 + 4 + 16 + 4 + 3 * 2 + 4);
    CHECK_EQ(buf[14] | (buf[15] << 8), n);
    CHECK_EQ(buf[n - 4] | buf[n - 3] | buf[n - 2] | buf[n - 1], 0);

    /* not UTF-8 */
    CHECK_EQ(ipc_build_attach_profiler(buf, sizeof(buf), 0, &CLSID_clrprobe, "/bad\xff.so", NULL, 0), IPC_ERR_ENCODING);

    /* more than 65535 bytes in all */
    long_path = malloc(40000);
    memset(long_path, 'a', 39999);
    long_path[39999] = '\0';
    CHECK_EQ(ipc_build_attach_profiler(buf, sizeof(buf), 0, &CLSID_clrprobe, long_path, NULL, 0), IPC_ERR_TOO_LONG);
    long_path[20000] = '\0';     /* 40 KB of UTF-16 fits, but not with 30 KB of client data */
    CHECK(ipc_build_attach_profiler(buf, sizeof(buf), 0, &CLSID_clrprobe, long_path, NULL, 0) > 40000);
    CHECK_EQ(ipc_build_attach_profiler(buf, sizeof(buf), 0, &CLSID_clrprobe, long_path, long_path, 30000),
             IPC_ERR_TOO_LONG);
    free(long_path);

    /* a small buffer is never overrun */
    memset(buf, 0xCC, 64);
    CHECK_EQ(ipc_build_attach_profiler(buf, 50, 0, &CLSID_clrprobe, "/some/path.so", NULL, 0), IPC_ERR_TOO_LONG);
    CHECK_EQ(buf[50], 0xCC);
    CHECK_EQ(ipc_build_attach_profiler(buf, 10, 0, &CLSID_clrprobe, "/p", NULL, 0), IPC_ERR_TOO_LONG);
    n = ipc_build_attach_profiler(buf, 20 + 4 + 16 + 4 + 3 * 2 + 4 + 2, 0, &CLSID_clrprobe, "/p", "xy", 2);
    CHECK_EQ(n, 20 + 4 + 16 + 4 + 3 * 2 + 4 + 2);                  /* exactly fits */
    CHECK_EQ(ipc_build_attach_profiler(buf, (size_t)n - 1, 0, &CLSID_clrprobe, "/p", "xy", 2), IPC_ERR_TOO_LONG);
}

TEST(ipc_empty_request_and_string)
{
    uint8_t buf[64];
    CHECK_EQ(ipc_build_empty_request(buf, sizeof(buf), IPC_SET_PROCESS, IPC_ID_PROCESS_INFO2), 20);
    CHECK(memcmp(buf, "DOTNET_IPC_V1\0\x14\x00\x04\x04\x00\x00", 20) == 0);
    CHECK_EQ(ipc_build_empty_request(buf, 19, IPC_SET_PROCESS, 0), IPC_ERR_TOO_LONG);

    CHECK_EQ(ipc_encode_string(buf, sizeof(buf), ""), 6);          /* count 1: just the NUL */
    CHECK(memcmp(buf, "\x01\x00\x00\x00\x00\x00", 6) == 0);
    CHECK_EQ(ipc_encode_string(buf, 9, "abc"), IPC_ERR_TOO_LONG);   /* needs 4 + 8 */
    CHECK_EQ(ipc_encode_string(buf, 12, "abc"), 12);
}

/* ------------------------------------------------------------------------
 * Replies.
 * ------------------------------------------------------------------------ */

TEST(ipc_reply_ok_and_error)
{
    uint8_t buf[64];
    char err[256];
    ipc_reply_t r;
    size_t n;

    n = make_hr_reply(buf, IPC_ID_OK, 0);
    CHECK_EQ(n, 24);
    CHECK_EQ(ipc_parse_reply(buf, n, &r, err, sizeof(err)), IPC_OK);
    CHECK(!r.is_error);
    CHECK_EQ(r.hr, 0);
    CHECK_EQ(r.payload_len, 4);

    n = make_hr_reply(buf, IPC_ID_ERROR, 0x8013136A);
    CHECK_EQ(ipc_parse_reply(buf, n, &r, err, sizeof(err)), IPC_OK);
    CHECK(r.is_error);
    CHECK_EQ(r.hr, CORPROF_E_PROFILER_ALREADY_ACTIVE);

    /* OK without payload; trailing bytes beyond size are not part of it */
    n = make_reply(buf, IPC_ID_OK, NULL, 0);
    memset(buf + n, 0x55, 8);
    CHECK_EQ(ipc_parse_reply(buf, n + 8, &r, err, sizeof(err)), IPC_OK);
    CHECK_EQ(r.hr, 0);
    CHECK_EQ(r.payload_len, 0);
}

TEST(ipc_reply_malformed)
{
    uint8_t buf[64];
    char err[256];
    ipc_reply_t r;
    ipc_header_t h;
    size_t n = make_hr_reply(buf, IPC_ID_OK, 0);

    /* short buffers, including an empty one */
    for (size_t len = 0; len < n; len++)
        CHECK_EQ(ipc_parse_reply(buf, len, &r, err, sizeof(err)), IPC_ERR_PROTOCOL);
    CHECK(strstr(err, "truncated") != NULL);
    CHECK_EQ(ipc_parse_header(buf, 19, &h), IPC_ERR_PROTOCOL);
    CHECK_EQ(ipc_parse_header(buf, 20, &h), IPC_OK);
    CHECK_EQ(h.size, 24);

    /* bad magic */
    buf[3] = 'X';
    CHECK_EQ(ipc_parse_reply(buf, n, &r, err, sizeof(err)), IPC_ERR_PROTOCOL);
    CHECK(strstr(err, "bad magic") != NULL);
    CHECK_EQ(ipc_parse_header(buf, n, &h), IPC_ERR_PROTOCOL);
    buf[3] = 'N';
    buf[13] = '!';                      /* the NUL is part of the magic */
    CHECK_EQ(ipc_parse_reply(buf, n, &r, err, sizeof(err)), IPC_ERR_PROTOCOL);
    buf[13] = 0;

    /* size field larger than the buffer (oversize), or smaller than a header */
    buf[14] = 0xFF;
    buf[15] = 0xFF;
    CHECK_EQ(ipc_parse_reply(buf, n, &r, err, sizeof(err)), IPC_ERR_PROTOCOL);
    CHECK(strstr(err, "truncated (24 of 65535 bytes)") != NULL);
    buf[14] = 19;
    buf[15] = 0;
    CHECK_EQ(ipc_parse_reply(buf, n, &r, err, sizeof(err)), IPC_ERR_PROTOCOL);
    CHECK_EQ(ipc_parse_header(buf, n, &h), IPC_ERR_PROTOCOL);

    /* not a server reply */
    n = make_hr_reply(buf, IPC_ID_OK, 0);
    buf[16] = IPC_SET_PROCESS;
    CHECK_EQ(ipc_parse_reply(buf, n, &r, err, sizeof(err)), IPC_ERR_PROTOCOL);
    n = make_hr_reply(buf, 0x42, 0);
    CHECK_EQ(ipc_parse_reply(buf, n, &r, err, sizeof(err)), IPC_ERR_PROTOCOL);

    /* an error reply must carry its HRESULT */
    n = make_reply(buf, IPC_ID_ERROR, (const uint8_t *)"\x01\x02", 2);
    CHECK_EQ(ipc_parse_reply(buf, n, &r, err, sizeof(err)), IPC_ERR_PROTOCOL);
    CHECK(strstr(err, "no HRESULT") != NULL);
    /* err may be NULL */
    CHECK_EQ(ipc_parse_reply(buf, n, &r, NULL, 0), IPC_ERR_PROTOCOL);
}

/* ------------------------------------------------------------------------
 * ProcessInfo / ProcessInfo2 payloads.
 * ------------------------------------------------------------------------ */

static const char *const info2_strings[] = {
    "/usr/bin/dotnet /srv/app/Caf\xc3\xa9.dll --port 80", "Linux", "x64", "Caf\xc3\xa9", "10.0.12",
};

TEST(ipc_process_info2_decoding)
{
    uint8_t buf[1024];
    ipc_process_info_t info;
    size_t n = make_info_payload(buf, sizeof(buf), 4242, info2_strings, 5);

    CHECK(n > 24);
    CHECK_EQ(ipc_decode_process_info(buf, n, 2, &info), IPC_OK);
    CHECK_EQ(info.pid, 4242);
    CHECK_EQ(info.cookie[0], 0xA0);
    CHECK_EQ(info.cookie[15], 0xAF);
    CHECK_STR(info.command_line, info2_strings[0]);
    CHECK_STR(info.os, "Linux");
    CHECK_STR(info.arch, "x64");
    CHECK_STR(info.entrypoint, "Caf\xc3\xa9");
    CHECK_STR(info.runtime_version, "10.0.12");
    CHECK_EQ(info.version, 2);
    ipc_process_info_free(&info);
    CHECK(info.command_line == NULL);
    ipc_process_info_free(&info);       /* twice is harmless */

    /* later runtimes may append fields */
    memset(buf + n, 0x77, 16);
    CHECK_EQ(ipc_decode_process_info(buf, n + 16, 2, &info), IPC_OK);
    CHECK_STR(info.runtime_version, "10.0.12");
    ipc_process_info_free(&info);

    /* version 1: three strings, the other two are "" */
    n = make_info_payload(buf, sizeof(buf), 7, info2_strings, 3);
    CHECK_EQ(ipc_decode_process_info(buf, n, 1, &info), IPC_OK);
    CHECK_EQ(info.version, 1);
    CHECK_STR(info.arch, "x64");
    CHECK_STR(info.entrypoint, "");
    CHECK_STR(info.runtime_version, "");
    ipc_process_info_free(&info);
}

TEST(ipc_process_info2_truncated)
{
    uint8_t buf[1024];
    ipc_process_info_t info;
    size_t n = make_info_payload(buf, sizeof(buf), 1, info2_strings, 5), len;
    int bad = 0;

    for (len = 0; len < n; len++) {
        if (ipc_decode_process_info(buf, len, 2, &info) != IPC_ERR_PROTOCOL)
            bad++;
        if (info.command_line || info.os || info.runtime_version)
            bad++;      /* nothing is left allocated after a failure */
    }
    CHECK_EQ(bad, 0);
}

TEST(ipc_process_info2_lying_lengths)
{
    uint8_t buf[1024];
    ipc_process_info_t info;
    size_t n = make_info_payload(buf, sizeof(buf), 1, info2_strings, 5);
    static const uint32_t lies[] = { 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 40000, 1000 };

    for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
        uint8_t copy[1024];
        memcpy(copy, buf, n);
        /* the first string's count */
        copy[24] = (uint8_t)lies[i];
        copy[25] = (uint8_t)(lies[i] >> 8);
        copy[26] = (uint8_t)(lies[i] >> 16);
        copy[27] = (uint8_t)(lies[i] >> 24);
        CHECK_EQ(ipc_decode_process_info(copy, n, 2, &info), IPC_ERR_PROTOCOL);
        CHECK(info.command_line == NULL);
    }

    /* the last string one unit too long: runs past the end by 2 bytes */
    {
        uint8_t copy[1024];
        size_t last = n - (4 + 2 * (strlen("10.0.12") + 1));
        memcpy(copy, buf, n);
        copy[last] = (uint8_t)(strlen("10.0.12") + 2);
        CHECK_EQ(ipc_decode_process_info(copy, n, 2, &info), IPC_ERR_PROTOCOL);
    }

    /* count 0 is an empty string; a count without the NUL is accepted */
    {
        uint8_t p[64];
        size_t pos = 24;
        memset(p, 0, sizeof(p));
        for (int s = 0; s < 5; s++) {
            memset(p + pos, 0, 4);
            if (s == 2) {               /* "x6" with no NUL counted */
                p[pos] = 2;
                p[pos + 4] = 'x';
                p[pos + 6] = '6';
                pos += 8;
            } else {
                pos += 4;
            }
        }
        CHECK_EQ(ipc_decode_process_info(p, pos, 2, &info), IPC_OK);
        CHECK_STR(info.command_line, "");
        CHECK_STR(info.arch, "x6");
        CHECK_STR(info.runtime_version, "");
        ipc_process_info_free(&info);
    }
}

/* ------------------------------------------------------------------------
 * HRESULT sentences.
 * ------------------------------------------------------------------------ */

TEST(ipc_hresult_messages)
{
    static const struct { HRESULT hr; const char *needle; } cases[] = {
        { CORPROF_E_PROFILER_ALREADY_ACTIVE, "a profiler is already active in the process (only one can be; detach it first)" },
        { CORPROF_E_PROFILER_NOT_ATTACHABLE, "cannot be attached" },
        { CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC, "timed out waiting for a background GC to finish; try again or give a longer timeout" },
        { CORPROF_E_PROFILER_CANCEL_ACTIVATION, "the agent refused to start (its reason, when it could give one, follows)" },
        { CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER, "attached profiler cannot have" },
        { CORPROF_E_CONCURRENT_GC_NOT_PROFILABLE, "DOTNET_gcConcurrent=0" },
        { CORPROF_E_RUNTIME_UNINITIALIZED, "the runtime is not ready yet (still starting); try again" },
        { CORPROF_E_NOT_YET_AVAILABLE, "the runtime is not ready yet (still starting); try again" },
        { CORDIAGIPC_E_BAD_ENCODING, "bad encoding" },
        { CORDIAGIPC_E_UNKNOWN_COMMAND, "the runtime does not support this command: too old (attach needs .NET 5 or newer)" },
        { CORDIAGIPC_E_UNKNOWN_MAGIC, "unknown protocol magic" },
        { CORDIAGIPC_E_UNKNOWN_ERROR, "unknown error" },
        { IPC_E_NOTSUPPORTED, "does not support this operation" },
        { E_FAIL, "the agent could not be loaded (dlopen or DllGetClassObject failed" },
        { E_INVALIDARG, "rejected the request as invalid" },
        { E_OUTOFMEMORY, "out of memory" },
        { CLASS_E_CLASSNOTAVAILABLE, "does not provide the requested profiler class" },
        { E_NOINTERFACE, "does not implement the profiler interfaces" },
        { CORPROF_E_PROFILER_DETACHING, "still detaching" },
        { S_OK, "success" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *m = ipc_hresult_message(cases[i].hr);
        if (!m || !strstr(m, cases[i].needle))
            unit_fail(__FILE__, __LINE__, "0x%08X: \"%s\" lacks \"%s\"", (unsigned)cases[i].hr,
                      m ? m : "(null)", cases[i].needle);
    }
    CHECK_STR(ipc_hresult_message((HRESULT)0x12345678), "HRESULT 0x12345678");
    CHECK_STR(ipc_hresult_message((HRESULT)0x80131999), "HRESULT 0x80131999");
}

/* ------------------------------------------------------------------------
 * UTF-8 <-> UTF-16.
 * ------------------------------------------------------------------------ */

TEST(ipc_utf_round_trip)
{
    static const char *const samples[] = {
        "", "plain ascii", "caf\xc3\xa9 \xc3\xbc\xc3\x9f",          /* 2-byte */
        "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xe2\x9c\x93",         /* 3-byte */
        "clef \xf0\x9d\x84\x9e and \xf0\x9f\x98\x80",                 /* 4-byte: surrogate pairs */
        "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf", /* boundaries */
    };
    uint8_t w[256];
    char back[256];

    for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
        long units = ipc_utf8_to_utf16le(samples[i], w, 128);
        CHECK(units >= 0);
        CHECK_EQ(ipc_utf16le_to_utf8(w, (size_t)units, back, sizeof(back)), strlen(samples[i]));
        CHECK_STR(back, samples[i]);
    }
    /* U+1D11E -> D834 DD1E, little-endian */
    CHECK_EQ(ipc_utf8_to_utf16le("\xf0\x9d\x84\x9e", w, 2), 2);
    CHECK(memcmp(w, "\x34\xd8\x1e\xdd", 4) == 0);
    /* measuring without a buffer */
    CHECK_EQ(ipc_utf8_to_utf16le("a\xc3\xa9\xf0\x9d\x84\x9e", NULL, 0), 4);
}

TEST(ipc_utf_invalid_and_truncation)
{
    static const char *const bad[] = {
        "\xc3", "a\xc3(", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff", "\x80",
        "\xf0\x9d\x84",
    };
    static const uint8_t lone[] = { 'a', 0, 0x00, 0xDC, 'b', 0, 0x34, 0xD8 };   /* a, lone low, b, lone high */
    static const uint8_t euro3[] = { 0xAC, 0x20, 0xAC, 0x20, 0xAC, 0x20 };       /* 3 x U+20AC */
    char out[16];

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (ipc_utf8_to_utf16le(bad[i], NULL, 0) != -1)
            unit_fail(__FILE__, __LINE__, "invalid UTF-8 #%zu accepted", i);

    CHECK_EQ(ipc_utf16le_to_utf8(lone, 4, out, sizeof(out)), 8);
    CHECK_STR(out, "a\xef\xbf\xbd" "b\xef\xbf\xbd");
    /* never half a character; the return value is the full length */
    CHECK_EQ(ipc_utf16le_to_utf8(euro3, 3, out, 8), 9);
    CHECK_STR(out, "\xe2\x82\xac\xe2\x82\xac");
    CHECK_EQ(ipc_utf16le_to_utf8(euro3, 3, out, 1), 9);
    CHECK_STR(out, "");
    CHECK_EQ(ipc_utf16le_to_utf8(euro3, 3, NULL, 0), 9);
    /* stops at a NUL unit */
    CHECK_EQ(ipc_utf16le_to_utf8((const uint8_t *)"a\0\0\0b\0", 3, out, sizeof(out)), 1);
    CHECK_STR(out, "a");
}

/* ------------------------------------------------------------------------
 * /proc text and socket names.
 * ------------------------------------------------------------------------ */

TEST(ipc_proc_parsers)
{
    uint64_t st = 0, key;
    int pid;

    CHECK_EQ(ipc_parse_stat_starttime("4242 (Sample) S 1 4242 4242 0 -1 4194560 10 0 0 0 5 1 0 0 20 0 9 0 "
                                      "236339 300000 5000 18446744073709551615 1 1 0 0 0\n", &st), 0);
    CHECK_EQ(st, 236339);
    CHECK_EQ(ipc_parse_stat_starttime("7 (a) b) (c d) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 99 1\n", &st), 0);
    CHECK_EQ(st, 99);
    CHECK_EQ(ipc_parse_stat_starttime("7 (x) R 1 2 3\n", &st), -1);
    CHECK_EQ(ipc_parse_stat_starttime("no parenthesis", &st), -1);
    CHECK_EQ(ipc_parse_stat_starttime("7 (x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 -5 1", &st), -1);


    CHECK_EQ(ipc_parse_socket_name("dotnet-diagnostic-3632-236339-socket", &pid, &key), 0);
    CHECK_EQ(pid, 3632);
    CHECK_EQ(key, 236339);
    CHECK_EQ(ipc_parse_socket_name("dotnet-diagnostic-1-18446744073709551615-socket", &pid, &key), 0);
    CHECK(key == UINT64_MAX);
    CHECK_EQ(ipc_parse_socket_name("dotnet-diagnostic-1-18446744073709551616-socket", &pid, &key), -1);
    CHECK_EQ(ipc_parse_socket_name("dotnet-diagnostic-0-5-socket", &pid, &key), -1);
    CHECK_EQ(ipc_parse_socket_name("dotnet-diagnostic-99999999999-5-socket", &pid, &key), -1);
    CHECK_EQ(ipc_parse_socket_name("dotnet-diagnostic--5-5-socket", &pid, &key), -1);
    CHECK_EQ(ipc_parse_socket_name("dotnet-diagnostic-5-5-socket.bak", &pid, &key), -1);
    CHECK_EQ(ipc_parse_socket_name("dotnet-diagnostic-5-socket", &pid, &key), -1);
    CHECK_EQ(ipc_parse_socket_name("dotnet-diagnostic-5--socket", &pid, &key), -1);
    CHECK_EQ(ipc_parse_socket_name("clr-debug-pipe-5-5-in", &pid, &key), -1);
}

/* Whose sockets can be a process's own: its /proc status's uids. */
TEST(ipc_status_uids_and_socket_owner)
{
    unsigned e = 9, f = 9;

    CHECK_EQ(ipc_parse_status_uids("Name:\tSample\nUmask:\t0022\nState:\tS (sleeping)\n"
                                   "Uid:\t1000\t1001\t1002\t1003\nGid:\t0\t0\t0\t0\n", &e, &f), 0);
    CHECK_EQ(e, 1001);
    CHECK_EQ(f, 1003);
    CHECK_EQ(ipc_parse_status_uids("Uid:\t0\t0\t0\t0\n", &e, &f), 0);
    CHECK_EQ(e, 0);
    CHECK_EQ(ipc_parse_status_uids("Name:\tx\nUid:\t5\t6\n", &e, &f), -1);
    CHECK_EQ(ipc_parse_status_uids("Name:\tUid:\t1 2 3 4\n", &e, &f), -1);   /* (not at a line's start) */
    CHECK_EQ(ipc_parse_status_uids("", &e, &f), -1);
    CHECK_EQ(ipc_parse_status_ids("Uid:\t1\t2\t3\t4\nGid:\t10\t20\t30\t40\n", "Gid:", &e, &f), 0);
    CHECK_EQ(e, 20);
    CHECK_EQ(f, 40);
    CHECK_EQ(ipc_parse_status_ids("Uid:\t1\t2\t3\t4\n", "Gid:", &e, &f), -1);
    CHECK(ipc_socket_owner_ok(1003, 1001, 1003));
    CHECK(ipc_socket_owner_ok(1001, 1001, 1003));
    CHECK(!ipc_socket_owner_ok(65534, 0, 0));
}

TEST(ipc_socket_path_errors)
{
    char path[IPC_PATH_MAX], err[512];

    CHECK_EQ(ipc_socket_path(0, path, sizeof(path), err, sizeof(err)), IPC_ERR_NO_PROCESS);
    CHECK_EQ(ipc_socket_path(-3, path, sizeof(path), err, sizeof(err)), IPC_ERR_NO_PROCESS);
    CHECK_EQ(ipc_socket_path(2147483647, path, sizeof(path), err, sizeof(err)), IPC_ERR_NO_PROCESS);
    CHECK_STR(err, "no process with pid 2147483647");
    /* this test program is not a .NET process */
    CHECK_EQ(ipc_socket_path((int)getpid(), path, sizeof(path), err, sizeof(err)), IPC_ERR_NO_SOCKET);
    CHECK(strstr(err, "is not a .NET process, or its diagnostics are disabled (DOTNET_EnableDiagnostics=0)") != NULL);
}

/* ------------------------------------------------------------------------
 * Transport, against a socket pair and a fake diagnostics server.
 * ------------------------------------------------------------------------ */

TEST(ipc_exchange_over_socketpair)
{
    uint8_t req[IPC_HEADER_SIZE], reply[256], sent[64];
    char err[256];
    size_t reply_len, n;
    int sv[2];
    int64_t t0;

    ipc_build_empty_request(req, sizeof(req), IPC_SET_PROCESS, IPC_ID_PROCESS_INFO2);

    /* a whole reply waiting */
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    n = make_hr_reply(sent, IPC_ID_OK, 0);
    CHECK_EQ(write(sv[1], sent, n), (ssize_t)n);
    CHECK_EQ(ipc_exchange(sv[0], 77, 1000, req, sizeof(req), reply, sizeof(reply), &reply_len, err, sizeof(err)),
             IPC_OK);
    CHECK_EQ(reply_len, 24);
    CHECK(memcmp(reply, sent, n) == 0);
    CHECK_EQ(read(sv[1], sent, sizeof(sent)), IPC_HEADER_SIZE);    /* the server got the request */
    close(sv[0]);
    close(sv[1]);

    /* nothing ever comes: timeout, on time */
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    t0 = now_ms();
    CHECK_EQ(ipc_exchange(sv[0], 77, 150, req, sizeof(req), reply, sizeof(reply), &reply_len, err, sizeof(err)),
             IPC_ERR_TIMEOUT);
    CHECK(now_ms() - t0 >= 140 && now_ms() - t0 < 3000);   /* (timed: generous above, for a busy machine) */
    CHECK_STR(err, "timed out after 150 ms waiting for process 77 to answer");
    /* half a header, then nothing: still a timeout */
    CHECK_EQ(write(sv[1], sent, 10), 10);
    CHECK_EQ(ipc_exchange(sv[0], 77, 100, req, sizeof(req), reply, sizeof(reply), &reply_len, err, sizeof(err)),
             IPC_ERR_TIMEOUT);
    close(sv[0]);
    close(sv[1]);

    /* closed without a word */
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    shutdown(sv[1], SHUT_WR);
    CHECK_EQ(ipc_exchange(sv[0], 77, 1000, req, sizeof(req), reply, sizeof(reply), &reply_len, err, sizeof(err)),
             IPC_ERR_PROTOCOL);
    CHECK(strstr(err, "closed the diagnostics connection without answering") != NULL);
    close(sv[0]);
    close(sv[1]);

    /* a truncated reply, then EOF */
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    n = make_reply(sent, IPC_ID_OK, (const uint8_t *)"0123456789", 10);
    CHECK_EQ(write(sv[1], sent, n - 3), (ssize_t)(n - 3));
    shutdown(sv[1], SHUT_WR);
    CHECK_EQ(ipc_exchange(sv[0], 77, 1000, req, sizeof(req), reply, sizeof(reply), &reply_len, err, sizeof(err)),
             IPC_ERR_PROTOCOL);
    CHECK(strstr(err, "truncated reply (27 of 30 bytes)") != NULL);
    close(sv[0]);
    close(sv[1]);

    /* garbage, and a reply bigger than the buffer */
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    CHECK_EQ(write(sv[1], "HTTP/1.1 400 Bad Request\r\n\r\n", 28), 28);
    CHECK_EQ(ipc_exchange(sv[0], 77, 1000, req, sizeof(req), reply, sizeof(reply), &reply_len, err, sizeof(err)),
             IPC_ERR_PROTOCOL);
    CHECK(strstr(err, "not a diagnostics IPC reply") != NULL);
    close(sv[0]);
    close(sv[1]);
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ipc_encode_header(sent, 60000, IPC_SET_SERVER, IPC_ID_OK);
    CHECK_EQ(write(sv[1], sent, 20), 20);
    CHECK_EQ(ipc_exchange(sv[0], 77, 1000, req, sizeof(req), reply, sizeof(reply), &reply_len, err, sizeof(err)),
             IPC_ERR_PROTOCOL);
    CHECK(strstr(err, "too big") != NULL);
    close(sv[0]);
    close(sv[1]);

    /* the peer is gone before the request is sent: no SIGPIPE, an error */
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    close(sv[1]);
    CHECK_EQ(ipc_exchange(sv[0], 77, 1000, req, sizeof(req), reply, sizeof(reply), &reply_len, err, sizeof(err)),
             IPC_ERR_PROTOCOL);
    close(sv[0]);
}

/* A private directory with a socket file named for pid 999999. */
static int make_sock_dir(char *dir, size_t cap, char *path, size_t pcap)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, cap, "%s/ipc-unit-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir))
        return -1;
    if ((size_t)snprintf(path, pcap, "%s/dotnet-diagnostic-999999-1-socket", dir) >= pcap ||
        strlen(path) >= IPC_PATH_MAX) {
        rmdir(dir);
        return -1;
    }
    return 0;
}

static int bind_unix(const char *path)
{
    struct sockaddr_un sa;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    strcpy(sa.sun_path, path);
    unlink(path);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

TEST(ipc_connect_errors)
{
    char dir[256], path[256], err[512];
    int fd, lfd;

    if (make_sock_dir(dir, sizeof(dir), path, sizeof(path)) < 0) {
        unit_fail(__FILE__, __LINE__, "cannot make a temporary directory");
        return;
    }
    /* nothing there */
    CHECK_EQ(ipc_connect(path, 500, err, sizeof(err)), IPC_ERR_NO_SOCKET);
    /* a stale socket: bound, then closed */
    lfd = bind_unix(path);
    CHECK(lfd >= 0);
    close(lfd);
    CHECK_EQ(ipc_connect(path, 500, err, sizeof(err)), IPC_ERR_REFUSED);
    CHECK_STR(err, "the diagnostics socket of process 999999 does not answer (the process may be exiting)");
    /* listening: connects */
    lfd = bind_unix(path);
    CHECK(lfd >= 0 && listen(lfd, 4) == 0);
    fd = ipc_connect(path, 500, err, sizeof(err));
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    close(lfd);
    unlink(path);
    /* a path too long for sockaddr_un */
    {
        char longp[300];
        memset(longp, 'x', sizeof(longp) - 1);
        longp[0] = '/';
        longp[sizeof(longp) - 1] = '\0';
        CHECK_EQ(ipc_connect(longp, 100, err, sizeof(err)), IPC_ERR_TOO_LONG);
    }
    rmdir(dir);
}

/* The fake server: serves one scripted reply per connection on a socket
 * named for this process, recording the requests. */
typedef struct fake {
    int lfd;
    int nreplies;
    const uint8_t *replies[4];
    size_t lens[4];
    uint8_t req[4][512];
    size_t reqlen[4];
    int served;
} fake_t;

static void *fake_serve(void *arg)
{
    fake_t *f = arg;

    for (int i = 0; i < f->nreplies; i++) {
        struct pollfd p = { f->lfd, POLLIN, 0 };
        size_t got = 0, want = IPC_HEADER_SIZE;
        int c;

        if (poll(&p, 1, 3000) <= 0)
            break;
        c = accept(f->lfd, NULL, NULL);
        if (c < 0)
            break;
        while (got < want && got < sizeof(f->req[i])) {
            ssize_t r = read(c, f->req[i] + got, sizeof(f->req[i]) - got);
            if (r <= 0)
                break;
            got += (size_t)r;
            if (got >= IPC_HEADER_SIZE)
                want = (size_t)(f->req[i][14] | (f->req[i][15] << 8));
        }
        f->reqlen[i] = got;
        if (f->lens[i])
            (void)!write(c, f->replies[i], f->lens[i]);
        else
            poll(&p, 0, 400);           /* say nothing for a while */
        close(c);
        f->served++;
    }
    return NULL;
}

/* Binds the fake server where ipc_socket_path(getpid()) looks. */
static int fake_start(fake_t *f, char *path, size_t cap)
{
    char dir[IPC_PATH_MAX];
    uint64_t st;

    if (ipc_process_tmpdir((int)getpid(), dir, sizeof(dir), NULL, 0) != IPC_OK ||
        ipc_process_starttime((int)getpid(), &st) != IPC_OK)
        return -1;
    if ((size_t)snprintf(path, cap, "%s/dotnet-diagnostic-%d-%llu-socket", strcmp(dir, "/") ? dir : "",
                         (int)getpid(), (unsigned long long)st) >= IPC_PATH_MAX)
        return -1;
    f->lfd = bind_unix(path);
    if (f->lfd < 0 || listen(f->lfd, 4) < 0)
        return -1;
    return 0;
}

static void fake_stop(fake_t *f, pthread_t th, const char *path)
{
    pthread_join(th, NULL);
    close(f->lfd);
    unlink(path);
}

TEST(ipc_fake_server_process_info_and_fallback)
{
    static fake_t f;
    uint8_t r1[64], r2[1024], payload[1024];
    char path[IPC_PATH_MAX + 64], err[512];
    ipc_process_info_t info;
    pthread_t th;
    size_t n;

    /* ProcessInfo2 answered */
    memset(&f, 0, sizeof(f));
    if (fake_start(&f, path, sizeof(path)) < 0) {
        unit_fail(__FILE__, __LINE__, "cannot start the fake server");
        return;
    }
    n = make_info_payload(payload, sizeof(payload), (uint64_t)getpid(), info2_strings, 5);
    f.replies[0] = r2;
    f.lens[0] = make_reply(r2, IPC_ID_OK, payload, n);
    f.nreplies = 1;
    pthread_create(&th, NULL, fake_serve, &f);
    CHECK_EQ(ipc_process_info((int)getpid(), 2000, &info, err, sizeof(err)), IPC_OK);
    fake_stop(&f, th, path);
    CHECK_EQ(info.version, 2);
    CHECK_STR(info.runtime_version, "10.0.12");
    CHECK_STR(info.entrypoint, "Caf\xc3\xa9");
    CHECK_EQ(f.reqlen[0], 20);
    CHECK_EQ(f.req[0][16], IPC_SET_PROCESS);
    CHECK_EQ(f.req[0][17], IPC_ID_PROCESS_INFO2);
    ipc_process_info_free(&info);

    /* an old runtime: UNKNOWN_COMMAND, then ProcessInfo */
    memset(&f, 0, sizeof(f));
    CHECK_EQ(fake_start(&f, path, sizeof(path)), 0);
    f.replies[0] = r1;
    f.lens[0] = make_hr_reply(r1, IPC_ID_ERROR, (uint32_t)CORDIAGIPC_E_UNKNOWN_COMMAND);
    n = make_info_payload(payload, sizeof(payload), 1234, info2_strings, 3);
    f.replies[1] = r2;
    f.lens[1] = make_reply(r2, IPC_ID_OK, payload, n);
    f.nreplies = 2;
    pthread_create(&th, NULL, fake_serve, &f);
    CHECK_EQ(ipc_process_info((int)getpid(), 2000, &info, err, sizeof(err)), IPC_OK);
    fake_stop(&f, th, path);
    CHECK_EQ(f.served, 2);
    CHECK_EQ(f.req[1][17], IPC_ID_PROCESS_INFO);
    CHECK_EQ(info.version, 1);
    CHECK_EQ(info.pid, 1234);
    CHECK_STR(info.os, "Linux");
    CHECK_STR(info.runtime_version, "");
    ipc_process_info_free(&info);

    /* another error */
    memset(&f, 0, sizeof(f));
    CHECK_EQ(fake_start(&f, path, sizeof(path)), 0);
    f.replies[0] = r1;
    f.lens[0] = make_hr_reply(r1, IPC_ID_ERROR, (uint32_t)CORPROF_E_RUNTIME_UNINITIALIZED);
    f.nreplies = 1;
    pthread_create(&th, NULL, fake_serve, &f);
    CHECK_EQ(ipc_process_info((int)getpid(), 2000, &info, err, sizeof(err)), IPC_ERR_PROTOCOL);
    fake_stop(&f, th, path);
    CHECK(strstr(err, "not ready yet") != NULL);
    CHECK(info.command_line == NULL);

    /* a malformed payload */
    memset(&f, 0, sizeof(f));
    CHECK_EQ(fake_start(&f, path, sizeof(path)), 0);
    f.replies[0] = r2;
    f.lens[0] = make_reply(r2, IPC_ID_OK, payload, 30);
    f.nreplies = 1;
    pthread_create(&th, NULL, fake_serve, &f);
    CHECK_EQ(ipc_process_info((int)getpid(), 2000, &info, err, sizeof(err)), IPC_ERR_PROTOCOL);
    fake_stop(&f, th, path);
    CHECK(strstr(err, "malformed ProcessInfo2 reply") != NULL);

    /* silence: the whole exchange is bounded */
    memset(&f, 0, sizeof(f));
    CHECK_EQ(fake_start(&f, path, sizeof(path)), 0);
    f.nreplies = 1;
    pthread_create(&th, NULL, fake_serve, &f);
    {
        int64_t t0 = now_ms();
        char want[128];
        CHECK_EQ(ipc_process_info((int)getpid(), 200, &info, err, sizeof(err)), IPC_ERR_TIMEOUT);
        CHECK(now_ms() - t0 < 1000);
        snprintf(want, sizeof(want), "timed out after 200 ms waiting for process %d to answer", (int)getpid());
        CHECK_STR(err, want);
    }
    fake_stop(&f, th, path);
}

/* AttachProfiler as the command does it: send, wait for the reply, read it. */
static int attach_sync(int pid, int timeout_ms, const char *agent, const void *data, uint32_t len, HRESULT *hr,
                       char *err, size_t errlen)
{
    struct pollfd p;
    int fd = ipc_attach_profiler_send(pid, timeout_ms, &CLSID_clrprobe, agent, data, len, -1, err, errlen), rc;

    if (fd < 0)
        return fd;
    p.fd = fd;
    p.events = POLLIN;
    if (poll(&p, 1, timeout_ms) != 1) {
        close(fd);
        return IPC_ERR_TIMEOUT;
    }
    rc = ipc_attach_profiler_reply(fd, pid, hr, err, errlen);
    close(fd);
    return rc;
}

TEST(ipc_fake_server_attach)
{
    static fake_t f;
    uint8_t r1[64], expect[256];
    char path[IPC_PATH_MAX + 64], err[512];
    pthread_t th;
    HRESULT hr = 0;
    long n;

    /* refused: the HRESULT comes back, the request is byte for byte the built one */
    memset(&f, 0, sizeof(f));
    if (fake_start(&f, path, sizeof(path)) < 0) {
        unit_fail(__FILE__, __LINE__, "cannot start the fake server");
        return;
    }
    f.replies[0] = r1;
    f.lens[0] = make_hr_reply(r1, IPC_ID_ERROR, (uint32_t)CORPROF_E_PROFILER_ALREADY_ACTIVE);
    f.nreplies = 1;
    pthread_create(&th, NULL, fake_serve, &f);
    CHECK_EQ(attach_sync((int)getpid(), 1000, "/opt/agent.so", "cfg", 3, &hr, err, sizeof(err)), IPC_OK);
    fake_stop(&f, th, path);
    CHECK_EQ(hr, CORPROF_E_PROFILER_ALREADY_ACTIVE);
    n = ipc_build_attach_profiler(expect, sizeof(expect), 1000, &CLSID_clrprobe, "/opt/agent.so", "cfg", 3);
    CHECK_EQ((long)f.reqlen[0], n);
    CHECK(n > 0 && memcmp(f.req[0], expect, (size_t)n) == 0);

    /* accepted */
    memset(&f, 0, sizeof(f));
    CHECK_EQ(fake_start(&f, path, sizeof(path)), 0);
    f.replies[0] = r1;
    f.lens[0] = make_hr_reply(r1, IPC_ID_OK, 0);
    f.nreplies = 1;
    pthread_create(&th, NULL, fake_serve, &f);
    CHECK_EQ(attach_sync((int)getpid(), 1000, "/opt/agent.so", NULL, 0, &hr, err, sizeof(err)), IPC_OK);
    fake_stop(&f, th, path);
    CHECK_EQ(hr, S_OK);

    /* invalid path: nothing is sent */
    CHECK_EQ(attach_sync((int)getpid(), 1000, "/opt/\xff.so", NULL, 0, &hr, err, sizeof(err)), IPC_ERR_ENCODING);
    CHECK(strstr(err, "not valid UTF-8") != NULL);
}

TEST(ipc_status_names)
{
    CHECK_STR(ipc_status_name(IPC_OK), "ok");
    CHECK_STR(ipc_status_name(IPC_ERR_TIMEOUT), "timeout");
    CHECK_STR(ipc_status_name(-100), "unknown status");
}

/* ---- a profiler already loaded (profcheck.c) ---- */

#define ENVB(s) s, sizeof(s) - 1

TEST(ipc_maps_find_by_path_inode_and_name)
{
    static const char maps[] =
        "55d0c0a00000-55d0c0a02000 r--p 00000000 fe:00 1234                       /usr/bin/dotnet\n"
        "7f97cc4e2000-7f97cc4e4000 r--p 00000000 fe:00 5326494                    /opt/my agent/libclrprobe.so (deleted)\n"
        "7f97cc4f0000-7f97cc4f1000 rw-p 00000000 00:00 0 \n"
        "7ffd1c5a1000-7ffd1c5c2000 rw-p 00000000 00:00 0                          [stack]\n"
        "7f97cc500000-7f97cc510000 r-xp 00002000 08:11 99                         /lib/x/libapm.so\n";
    char out[256];

    CHECK_EQ(1, ipc_maps_find(maps, sizeof(maps) - 1, "/lib/x/libapm.so", 0, 0, 0, NULL, out, sizeof(out)));
    CHECK_STR(out, "/lib/x/libapm.so");
    CHECK_EQ(1, ipc_maps_find(maps, sizeof(maps) - 1, "/elsewhere/apm.so", 0x8, 0x11, 99, NULL, out, sizeof(out)));
    CHECK_STR(out, "/lib/x/libapm.so");
    CHECK_EQ(0, ipc_maps_find(maps, sizeof(maps) - 1, "/elsewhere/apm.so", 0x8, 0x12, 99, NULL, out, sizeof(out)));
    /* by file name, with a space in the directory and the (deleted) suffix */
    CHECK_EQ(1, ipc_maps_find(maps, sizeof(maps) - 1, NULL, 0, 0, 0, "libclrprobe.so", out, sizeof(out)));
    CHECK_STR(out, "/opt/my agent/libclrprobe.so");
    CHECK_EQ(0, ipc_maps_find(maps, sizeof(maps) - 1, NULL, 0, 0, 0, "[stack]", out, sizeof(out)));
    CHECK_EQ(0, ipc_maps_find(maps, sizeof(maps) - 1, NULL, 0, 0, 0, "clrprobe.so", out, sizeof(out)));
    CHECK_EQ(0, ipc_maps_find("garbage\n\n", 9, NULL, 0, 0, 0, "garbage", out, sizeof(out)));
}

TEST(ipc_loaded_profiler_of_this_process)
{
    ipc_loaded_profiler_t lp;
    char err[256];

    /* the unit tests load no profiler and have no clrprobe-* thread */
    CHECK_EQ(IPC_OK, ipc_loaded_profiler(getpid(), &lp, err, sizeof(err)));
    CHECK_EQ(IPC_PROFILER_NONE, lp.kind);
    CHECK_EQ(IPC_ERR_NO_PROCESS, ipc_loaded_profiler(0, &lp, err, sizeof(err)));
}

/* ---- the C library of a process (libc_check.c) ---- */

static ipc_libc_t libc_of(const char *maps)
{
    ipc_libc_t l;
    ipc_libc_from_maps(maps, strlen(maps), &l);
    return l;
}

TEST(ipc_libc_read_from_the_mapped_files)
{
    ipc_libc_t l;
    char err[512];

    /* glibc before 2.34: the kernel names libc-X.Y.so, not the libc.so.6 link */
    l = libc_of("7f0000000000-7f0000001000 r--p 00000000 08:01 12 /usr/lib/x86_64-linux-gnu/libdl-2.31.so\n"
                "7f0000002000-7f0000003000 r-xp 00002000 08:01 13 /usr/lib/x86_64-linux-gnu/libc-2.31.so\n");
    CHECK_EQ(IPC_LIBC_GLIBC, l.kind);
    CHECK_EQ(2, l.major);
    CHECK_EQ(31, l.minor);
    CHECK_EQ(0, l.at_least);
    CHECK_STR(l.path, "/usr/lib/x86_64-linux-gnu/libc-2.31.so");
    CHECK_EQ(IPC_OK, ipc_libc_refuses(&l, 7, err, sizeof(err)));
    /* RHEL 8: the oldest accepted */
    l = libc_of("7f0000002000-7f0000003000 r-xp 00002000 08:01 13 /usr/lib64/libc-2.28.so\n");
    CHECK_EQ(IPC_OK, ipc_libc_refuses(&l, 7, err, sizeof(err)));
    /* Amazon Linux 2: refused, with the version and the supported ones */
    l = libc_of("7f0000002000-7f0000003000 r-xp 00002000 08:01 13 /usr/lib64/libc-2.26.so\n");
    CHECK_EQ(IPC_ERR_REFUSED, ipc_libc_refuses(&l, 7, err, sizeof(err)));
    CHECK(strstr(err, "process 7 runs on glibc 2.26 (/usr/lib64/libc-2.26.so)") != NULL);
    CHECK(strstr(err, "needs glibc 2.28 or later") != NULL);
    /* 2.34 and later: libc.so.6 itself, a lower bound; a deleted (upgraded) file too */
    l = libc_of("7f0000002000-7f0000003000 r-xp 00002000 08:01 13 /usr/lib/x86_64-linux-gnu/libc.so.6 (deleted)\n");
    CHECK_EQ(IPC_LIBC_GLIBC, l.kind);
    CHECK_EQ(1, l.at_least);
    CHECK_STR(l.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    CHECK_EQ(IPC_OK, ipc_libc_refuses(&l, 7, err, sizeof(err)));
    /* Alpine: musl's loader is its C library */
    l = libc_of("55d0c0a00000-55d0c0a02000 r--p 00000000 fe:00 1234 /usr/share/dotnet/dotnet\n"
                "7f0000002000-7f0000003000 r-xp 00002000 08:01 13 /lib/ld-musl-x86_64.so.1\n");
    CHECK_EQ(IPC_LIBC_MUSL, l.kind);
    CHECK_EQ(IPC_ERR_REFUSED, ipc_libc_refuses(&l, 9, err, sizeof(err)));
    CHECK(strstr(err, "process 9 runs on musl (/lib/ld-musl-x86_64.so.1") != NULL);
    /* names that only look alike; no C library at all: unknown, not refused */
    l = libc_of("7f0000002000-7f0000003000 r-xp 00002000 08:01 13 /opt/app/libc-2.20.so.bak\n"
                "7f0000002000-7f0000003000 r-xp 00002000 08:01 13 /opt/app/mylibc.so.6\n"
                "7f0000002000-7f0000003000 r-xp 00002000 08:01 13 /opt/app/libc-x.y.so\n"
                "7ffd1c5a1000-7ffd1c5c2000 rw-p 00000000 00:00 0 [stack]\n");
    CHECK_EQ(IPC_LIBC_UNKNOWN, l.kind);
    CHECK_EQ(IPC_OK, ipc_libc_refuses(&l, 7, err, sizeof(err)));
    CHECK_EQ(0, ipc_libc_from_maps("", 0, &l));
}

TEST(ipc_libc_of_this_process)
{
    ipc_libc_t l;
    char err[256];

    CHECK_EQ(IPC_OK, ipc_target_libc(getpid(), &l, err, sizeof(err)));
    CHECK_EQ(IPC_LIBC_GLIBC, l.kind);
    CHECK_EQ(IPC_OK, ipc_libc_refuses(&l, getpid(), err, sizeof(err)));
}

/* ---- containers (procfs.c) ---- */

TEST(ipc_container_id_from_the_cgroup_path)
{
    char id[65];
    static const char podman[] =
        "1:cpu:/libpod_parent/libpod-8d482d730124b4985d40601d8f02749784d1afb9b9a4e5a67607fdcb70da2984\n"
        "0::/libpod_parent/libpod-8d482d730124b4985d40601d8f02749784d1afb9b9a4e5a67607fdcb70da2984\n";
    static const char docker[] = "0::/system.slice/docker-"
                                 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n";
    static const char kube[] = "0::/kubepods/burstable/pod5a3b1c2d-1111-2222-3333-444455556666/"
                               "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210\n";

    CHECK_EQ(1, ipc_container_id_from_cgroup(podman, sizeof(podman) - 1, id));
    CHECK_STR(id, "8d482d730124b4985d40601d8f02749784d1afb9b9a4e5a67607fdcb70da2984");
    CHECK_EQ(1, ipc_container_id_from_cgroup(docker, sizeof(docker) - 1, id));
    CHECK_STR(id, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    /* the pod's uid is no id; the container's, last, is */
    CHECK_EQ(1, ipc_container_id_from_cgroup(kube, sizeof(kube) - 1, id));
    CHECK_STR(id, "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210");
    /* a host process; 63 and 65 digits are no id */
    CHECK_EQ(0, ipc_container_id_from_cgroup("0::/user.slice/user-0.slice/session-1.scope\n", 44, id));
    CHECK_STR(id, "");
    CHECK_EQ(0, ipc_container_id_from_cgroup("0::/x-123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
                                             70, id));
    CHECK_EQ(0, ipc_container_id_from_cgroup("0::/x-00123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
                                             72, id));
    CHECK_EQ(0, ipc_container_id_from_cgroup("", 0, id));
}

TEST(ipc_this_process_is_not_foreign)
{
    CHECK_EQ(0, ipc_ns_foreign(getpid()));
    CHECK_EQ(0, ipc_ns_foreign(0));
}

/* ---- process names (byname.c) ---- */

TEST(ipc_dotnet_process_name_rule)
{
    char out[64];

    /* an apphost: comm, and argv[0] agrees */
    ipc_dotnet_process_name("Sample", ENVB("/app/Sample\0spin\0"), out, sizeof(out));
    CHECK_STR(out, "Sample");
    /* comm cut to 15 bytes: argv[0]'s file name, whole */
    ipc_dotnet_process_name("MyVeryLongServi", ENVB("./bin/MyVeryLongService.Api\0--urls\0"), out, sizeof(out));
    CHECK_STR(out, "MyVeryLongService.Api");
    /* case is ignored in the comparison, argv's spelling is kept */
    ipc_dotnet_process_name("myapp", ENVB("/x/MyApp\0"), out, sizeof(out));
    CHECK_STR(out, "MyApp");
    /* the host: dotnet, not the assembly */
    ipc_dotnet_process_name("dotnet", ENVB("dotnet\0app.dll\0"), out, sizeof(out));
    CHECK_STR(out, "dotnet");
    /* a script: argv[1] when argv[0] (the interpreter) does not start with comm */
    ipc_dotnet_process_name("my-long-script-", ENVB("/bin/sh\0/usr/bin/my-long-script-name\0"), out, sizeof(out));
    CHECK_STR(out, "my-long-script-name");
    /* argv[0] changed to something else: comm */
    ipc_dotnet_process_name("Sample", ENVB("renamed\0spin\0"), out, sizeof(out));
    CHECK_STR(out, "Sample");
    /* no command line (a zombie, a kernel thread), or one without a NUL */
    ipc_dotnet_process_name("Sample", "", 0, out, sizeof(out));
    CHECK_STR(out, "Sample");
    ipc_dotnet_process_name("Sample", ENVB("SampleX"), out, sizeof(out));
    CHECK_STR(out, "Sample");
    /* cut to the buffer */
    ipc_dotnet_process_name("abc", ENVB("abcdefghij\0"), out, 5);
    CHECK_STR(out, "abcd");
}

TEST(ipc_process_name_of_this_process)
{
    char out[256], *cmd = NULL;

    CHECK_EQ(IPC_OK, ipc_process_name(getpid(), out, sizeof(out), &cmd));
    CHECK_STR(out, "unit_tests");
    CHECK(cmd && strstr(cmd, "unit_tests"));
    free(cmd);
    CHECK_EQ(IPC_ERR_NO_PROCESS, ipc_process_name(999999999, out, sizeof(out), NULL));
}
