/* test_pdb.c - the portable-PDB reader (src/symbols) on the builds of
 * tests/data/pdb: every method's sequence points as System.Reflection.Metadata
 * reads them (the expected lines below were printed once by a throwaway C#
 * program using it), the line rule at chosen IL offsets, the same answers
 * from the embedded PDB, the search (beside, symbols directory, CodeView
 * name), and the refusals: another build's PDB, a Windows PDB, no PDB, a
 * FIFO or a directory instead of an assembly. */
#include "unit.h"
#include "symbols/pdb.h"
#include "symbols/pe_debug.h"
#include "symbols/symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA "tests/data/pdb"
#define PORTABLE_DLL DATA "/portable/PdbLib.dll"
#define PORTABLE_PDB DATA "/portable/PdbLib.pdb"
#define EMBEDDED_DLL DATA "/embedded/PdbLib.dll"
#define OTHER_PDB DATA "/other/PdbLib.pdb"

/* What System.Reflection.Metadata reads: token, then each point as
 * IL:line.col-endline.endcol@file (file name only) or IL:hidden. */
static const char *const oracle[] = {
    "0x06000001: 0:12.13-12.26@Calc.cs",
    "0x06000002: 0:17.13-17.27@Calc.cs 2:18.18-18.27@Calc.cs 4:hidden 6:20.17-20.28@Calc.cs 10:21.17-21.34@Calc.cs "
    "18:18.37-18.40@Calc.cs 22:18.29-18.35@Calc.cs 26:24.13-24.26@Calc.cs",
    "0x06000003: 0:29.13-29.27@Calc.cs 3:500.13-500.23@Generated.txt 5:501.13-501.23@Generated.txt "
    "7:34.13-34.22@Calc.cs",
    "0x06000004:",
    "0x06000005: 0:hidden 12:45.13-45.31@Calc.cs",
    "0x06000006: 0:50.13-50.34@Calc.cs 8:51.17-51.35@Calc.cs 18:52.13-52.29@Calc.cs",
    "0x06000007: 0:8.13-8.27@Calc.Part2.cs 3:9.13-9.22@Calc.Part2.cs",
    "0x06000008:",
    "0x06000009:",
    "0x0600000a: 0:45.25-45.30@Calc.cs",
    "0x0600000b: 0:hidden 7:hidden 10:39.13-39.32@Calc.cs 24:hidden 100:40.13-40.26@Calc.cs 111:hidden "
    "136:41.9-41.10@Calc.cs 144:hidden",
    "0x0600000c:",
};
#define NMETHODS (sizeof(oracle) / sizeof(oracle[0]))

static void dump_method(sym_module *m, uint32_t token, char *out, size_t cap)
{
    sym_point pts[64];
    size_t n = sym_module_points(m, token, pts, 64), len;

    len = (size_t)snprintf(out, cap, "0x%08x:", token);
    for (size_t i = 0; i < n && i < 64 && len < cap; i++) {
        const char *f = strrchr(pts[i].start.file, '/');
        if (pts[i].start.line == SYM_LINE_HIDDEN)
            len += (size_t)snprintf(out + len, cap - len, " %u:hidden", pts[i].il_offset);
        else
            len += (size_t)snprintf(out + len, cap - len, " %u:%u.%u-%u.%u@%s", pts[i].il_offset,
                                    pts[i].start.line, pts[i].start.column, pts[i].end_line, pts[i].end_column,
                                    f ? f + 1 : pts[i].start.file);
    }
}

static void check_oracle(sym_module *m)
{
    char got[2048];
    CHECK_EQ(sym_module_method_count(m), NMETHODS);
    for (uint32_t i = 0; i < NMETHODS; i++) {
        dump_method(m, 0x06000001 + i, got, sizeof(got));
        CHECK_STR(got, oracle[i]);
    }
}

#define LINE_IS(m, token, il, want_file, want_line)                              \
    do {                                                                         \
        sym_line l_ = { NULL, 0, 0 };                                            \
        CHECK_EQ(sym_module_line((m), (token), (il), &l_), 1);                   \
        CHECK_STR(l_.file, (want_file));                                         \
        CHECK_EQ(l_.line, (want_line));                                          \
    } while (0)

/* The line rule on the known methods. */
static void check_lines(sym_module *m)
{
    sym_line l;
    const char *calc = "/src/pdblib/Calc.cs";

    LINE_IS(m, 0x06000001, 0, calc, 12);
    LINE_IS(m, 0x06000001, 5, calc, 12);
    /* SumTo: the loop over lines 17-24; IL 4 is hidden: the visible one before it */
    LINE_IS(m, 0x06000002, 0, calc, 17);
    LINE_IS(m, 0x06000002, 1, calc, 17);
    LINE_IS(m, 0x06000002, 2, calc, 18);
    LINE_IS(m, 0x06000002, 4, calc, 18);
    LINE_IS(m, 0x06000002, 5, calc, 18);
    LINE_IS(m, 0x06000002, 6, calc, 20);
    LINE_IS(m, 0x06000002, 12, calc, 21);
    LINE_IS(m, 0x06000002, 19, calc, 18);
    LINE_IS(m, 0x06000002, 26, calc, 24);
    LINE_IS(m, 0x06000002, 1000, calc, 24);
    LINE_IS(m, 0x06000002, SYM_IL_PROLOG, calc, 17);
    LINE_IS(m, 0x06000002, SYM_IL_EPILOG, calc, 24);
    CHECK_EQ(sym_module_line(m, 0x06000002, SYM_IL_NO_MAPPING, &l), 0);
    CHECK_EQ(sym_module_line(m, 0x06000002, 20, &l), 1);
    CHECK_EQ(l.column, 37);
    /* Moved: #line 500 "Generated.txt" (document-records), and back */
    LINE_IS(m, 0x06000003, 0, calc, 29);
    LINE_IS(m, 0x06000003, 3, "/src/pdblib/Generated.txt", 500);
    LINE_IS(m, 0x06000003, 6, "/src/pdblib/Generated.txt", 501);
    LINE_IS(m, 0x06000003, 7, calc, 34);
    /* the async kick-off method has no points; its MoveNext has, hidden ones first */
    CHECK_EQ(sym_module_line(m, 0x06000004, 0, &l), 0);
    CHECK_EQ(sym_module_line(m, 0x06000004, SYM_IL_PROLOG, &l), 0);
    LINE_IS(m, 0x0600000b, 0, calc, 39);        /* hidden, none visible before: the first after */
    LINE_IS(m, 0x0600000b, 8, calc, 39);
    LINE_IS(m, 0x0600000b, 24, calc, 39);
    LINE_IS(m, 0x0600000b, 111, calc, 40);
    LINE_IS(m, 0x0600000b, 140, calc, 41);
    LINE_IS(m, 0x0600000b, 144, calc, 41);
    LINE_IS(m, 0x0600000b, SYM_IL_PROLOG, calc, 39);
    LINE_IS(m, 0x0600000b, SYM_IL_EPILOG, calc, 41);
    /* the lambda and the method that makes it */
    LINE_IS(m, 0x06000005, 0, calc, 45);
    LINE_IS(m, 0x0600000a, 0, calc, 45);
    CHECK_EQ(sym_module_line(m, 0x0600000a, 0, &l), 1);
    CHECK_EQ(l.column, 25);
    /* the generic method; the second document */
    LINE_IS(m, 0x06000006, 9, calc, 51);
    LINE_IS(m, 0x06000007, 3, "/src/pdblib/Calc.Part2.cs", 9);
    /* no such method */
    CHECK_EQ(sym_module_line(m, 0x06000000, 0, &l), 0);
    CHECK_EQ(sym_module_line(m, 0x06000000 + NMETHODS + 1, 0, &l), 0);
    CHECK_EQ(sym_module_line(m, 0x02000002, 0, &l), 0);
    CHECK_EQ(sym_module_line(m, 0x06ffffff, 0, &l), 0);
}

TEST(pdb_beside_the_assembly)
{
    const char *why = "unset";
    sym_cache *c = sym_cache_new(NULL);
    sym_module *m = sym_cache_module(c, PORTABLE_DLL, &why);

    CHECK(m != NULL);
    CHECK(why == NULL);
    if (m) {
        CHECK_STR(sym_module_source(m), PORTABLE_PDB);
        check_oracle(m);
        check_lines(m);
        CHECK(sym_cache_module(c, PORTABLE_DLL, NULL) == m);     /* cached */
    }
    sym_cache_free(c);
}

TEST(pdb_embedded)
{
    const char *why = NULL;
    sym_cache *c = sym_cache_new("/nonexistent-symbols");
    sym_module *m = sym_cache_module(c, EMBEDDED_DLL, &why);

    CHECK(m != NULL);
    if (m) {
        CHECK_STR(sym_module_source(m), "embedded");
        check_oracle(m);
        check_lines(m);
    }
    sym_cache_free(c);
}

/* ---- temporary directories ---- */

static char base[64];

static void make_base(void)
{
    unit_temp_dir(base, sizeof(base), "pdb");
}

static void remove_base(void)
{
    unit_remove_tree(base);
}

static int copy_file(const char *from, const char *to)
{
    char buf[8192];
    size_t n;
    int rc = 0;
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");

    if (!in || !out)
        rc = -1;
    while (rc == 0 && (n = fread(buf, 1, sizeof(buf), in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            rc = -1;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = -1;
    return rc;
}

static const char *at(const char *name)      /* base/name, in one of a few buffers */
{
    static char paths[8][256];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 256, "%s/%s", base, name);
    return p;
}

static int contains(const char *s, const char *part)
{
    return s && strstr(s, part) != NULL;
}

TEST(pdb_found_in_the_symbols_dir)
{
    const char *why = NULL;
    sym_cache *c;
    sym_module *m;

    make_base();
    CHECK(base[0] != '\0');
    CHECK_EQ(mkdir(at("app"), 0755), 0);
    CHECK_EQ(mkdir(at("syms"), 0755), 0);
    CHECK_EQ(copy_file(PORTABLE_DLL, at("app/PdbLib.dll")), 0);
    CHECK_EQ(copy_file(PORTABLE_PDB, at("syms/PdbLib.pdb")), 0);
    c = sym_cache_new(at("syms"));
    m = sym_cache_module(c, at("app/PdbLib.dll"), &why);
    CHECK(m != NULL);
    if (m) {
        CHECK_STR(sym_module_source(m), at("syms/PdbLib.pdb"));
        check_oracle(m);
    }
    sym_cache_free(c);

    /* the assembly renamed: found by the CodeView entry's file name, beside it and in the directory */
    CHECK_EQ(rename(at("app/PdbLib.dll"), at("app/Renamed.dll")), 0);
    c = sym_cache_new(at("syms/"));
    m = sym_cache_module(c, at("app/Renamed.dll"), &why);
    CHECK(m != NULL);
    if (m)
        CHECK_STR(sym_module_source(m), at("syms/PdbLib.pdb"));
    sym_cache_free(c);
    CHECK_EQ(rename(at("syms/PdbLib.pdb"), at("app/PdbLib.pdb")), 0);
    c = sym_cache_new(NULL);
    m = sym_cache_module(c, at("app/Renamed.dll"), &why);
    CHECK(m != NULL);
    if (m)
        CHECK_STR(sym_module_source(m), at("app/PdbLib.pdb"));
    sym_cache_free(c);
    remove_base();
}

TEST(pdb_of_another_build_refused)
{
    const char *why = NULL, *why2 = NULL;
    sym_cache *c;
    sym_module *m;

    make_base();
    CHECK_EQ(mkdir(at("syms"), 0755), 0);
    CHECK_EQ(copy_file(PORTABLE_DLL, at("PdbLib.dll")), 0);
    CHECK_EQ(copy_file(OTHER_PDB, at("PdbLib.pdb")), 0);
    c = sym_cache_new(at("syms"));
    m = sym_cache_module(c, at("PdbLib.dll"), &why);
    CHECK(m == NULL);
    CHECK(contains(why, "does not match PdbLib.dll (another build)"));
    CHECK(contains(why, at("PdbLib.pdb")));
    /* the failure is cached: the same answer, the same phrase */
    CHECK(sym_cache_module(c, at("PdbLib.dll"), &why2) == NULL);
    CHECK(why2 == why);
    sym_cache_free(c);

    /* the search goes on: the right one in the symbols directory */
    CHECK_EQ(copy_file(PORTABLE_PDB, at("syms/PdbLib.pdb")), 0);
    c = sym_cache_new(at("syms"));
    m = sym_cache_module(c, at("PdbLib.dll"), &why);
    CHECK(m != NULL);
    if (m)
        CHECK_STR(sym_module_source(m), at("syms/PdbLib.pdb"));
    sym_cache_free(c);
    remove_base();
}

TEST(pdb_missing_gives_the_reason)
{
    const char *why = NULL;
    char want[512];
    sym_cache *c;

    make_base();
    CHECK_EQ(copy_file(PORTABLE_DLL, at("PdbLib.dll")), 0);
    c = sym_cache_new(NULL);
    CHECK(sym_cache_module(c, at("PdbLib.dll"), &why) == NULL);
    snprintf(want, sizeof(want), "no PdbLib.pdb beside %s, none embedded", at("PdbLib.dll"));
    CHECK_STR(why, want);
    sym_cache_free(c);
    c = sym_cache_new("/nonexistent-syms");
    CHECK(sym_cache_module(c, at("PdbLib.dll"), &why) == NULL);
    snprintf(want, sizeof(want), "no PdbLib.pdb beside %s, none embedded, none in /nonexistent-syms",
             at("PdbLib.dll"));
    CHECK_STR(why, want);
    CHECK(sym_cache_module(c, at("Nothing.dll"), &why) == NULL);
    snprintf(want, sizeof(want), "cannot read %s: No such file or directory", at("Nothing.dll"));
    CHECK_STR(why, want);
    /* not an assembly */
    CHECK_EQ(copy_file(PORTABLE_PDB, at("NotPe.dll")), 0);
    CHECK(sym_cache_module(c, at("NotPe.dll"), &why) == NULL);
    CHECK(contains(why, "not a PE file"));
    sym_cache_free(c);
    remove_base();
}

TEST(pdb_windows_pdb_refused)
{
    static const char msf[] = "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0\0garbage garbage garbage garbage";
    const char *why = NULL;
    sym_cache *c;
    FILE *f;
    char err[128];

    make_base();
    CHECK_EQ(copy_file(PORTABLE_DLL, at("PdbLib.dll")), 0);
    f = fopen(at("PdbLib.pdb"), "wb");
    CHECK(f != NULL);
    if (f) {
        fwrite(msf, 1, sizeof(msf) - 1, f);
        fclose(f);
    }
    c = sym_cache_new(NULL);
    CHECK(sym_cache_module(c, at("PdbLib.dll"), &why) == NULL);
    CHECK(contains(why, "is not a portable PDB (a Windows PDB?)"));
    sym_cache_free(c);
    CHECK(pdb_is_windows_pdb((const uint8_t *)msf, sizeof(msf) - 1));
    CHECK(pdb_open_memory((const uint8_t *)msf, sizeof(msf) - 1, err, sizeof(err)) == NULL);
    CHECK_STR(err, "not a portable PDB (a Windows PDB?)");
    remove_base();
}

TEST(pdb_fifo_or_directory_does_not_block)
{
    const char *why = NULL;
    sym_cache *c;

    make_base();
    CHECK_EQ(mkfifo(at("Fifo.dll"), 0600), 0);
    CHECK_EQ(mkdir(at("Dir.dll"), 0755), 0);
    CHECK_EQ(copy_file(PORTABLE_DLL, at("PdbLib.dll")), 0);
    CHECK_EQ(mkfifo(at("PdbLib.pdb"), 0600), 0);       /* a FIFO where the PDB would be */
    c = sym_cache_new(base);
    CHECK(sym_cache_module(c, at("Fifo.dll"), &why) == NULL);
    CHECK(contains(why, "cannot read") && contains(why, "not a regular file"));
    CHECK(sym_cache_module(c, at("Dir.dll"), &why) == NULL);
    CHECK(contains(why, "cannot read") && contains(why, "Is a directory"));
    CHECK(sym_cache_module(c, at("PdbLib.dll"), &why) == NULL);
    CHECK(contains(why, "PdbLib.pdb: not a regular file"));
    sym_cache_free(c);
    remove_base();
}

/* ---- the layers below, from memory ---- */

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *d = NULL;
    long n;

    *len = 0;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (d = malloc((size_t)n)) && fread(d, 1, (size_t)n, f) == (size_t)n)
        *len = (size_t)n;
    fclose(f);
    return d;
}

TEST(pdb_debug_directory_and_ids)
{
    size_t dll_len, pdb_len, emb_len, other_len, inflated_len;
    uint8_t *dll = slurp(PORTABLE_DLL, &dll_len), *pdb = slurp(PORTABLE_PDB, &pdb_len);
    uint8_t *emb = slurp(EMBEDDED_DLL, &emb_len), *other = slurp(OTHER_PDB, &other_len), *inflated = NULL;
    pe_debug_info info;
    char err[256], *why = NULL;
    pdb_file *p;
    sym_module *m;

    CHECK(dll && pdb && emb && other);
    if (!dll || !pdb || !emb || !other)
        goto out;
    CHECK_EQ(pe_debug_read(dll, dll_len, &info, err, sizeof(err)), 0);
    CHECK(info.has_codeview && info.codeview_portable && !info.has_embedded);
    CHECK_STR(info.pdb_path + strlen(info.pdb_path) - 10, "PdbLib.pdb");
    p = pdb_open_memory(pdb, pdb_len, err, sizeof(err));
    CHECK(p != NULL);
    if (p) {
        CHECK(memcmp(pdb_id(p), info.pdb_id, PDB_ID_SIZE) == 0);
        CHECK_EQ(pdb_method_count(p), NMETHODS);
        CHECK_EQ(pdb_document_count(p), 5);
        CHECK_STR(pdb_document_name(p, 5), "/src/pdblib/Generated.txt");
        CHECK(pdb_document_name(p, 6) == NULL);
        pdb_close(p);
    }
    CHECK_EQ(pe_debug_read(emb, emb_len, &info, err, sizeof(err)), 0);
    CHECK(info.has_codeview && info.has_embedded);
    CHECK_EQ(pe_debug_inflate_embedded(emb, emb_len, &info, &inflated, &inflated_len, err, sizeof(err)), 0);
    p = inflated ? pdb_open_memory(inflated, inflated_len, err, sizeof(err)) : NULL;
    CHECK(p != NULL);
    if (p) {
        CHECK(memcmp(pdb_id(p), info.pdb_id, PDB_ID_SIZE) == 0);
        pdb_close(p);
    }
    /* the in-memory module: the matching PDB, another build's, the embedded one */
    m = sym_module_open_memory(dll, dll_len, pdb, pdb_len, &why);
    CHECK(m != NULL);
    if (m) {
        check_oracle(m);
        sym_module_free(m);
    }
    m = sym_module_open_memory(dll, dll_len, other, other_len, &why);
    CHECK(m == NULL);
    CHECK(contains(why, "another build"));
    free(why);
    m = sym_module_open_memory(emb, emb_len, NULL, 0, &why);
    CHECK(m != NULL);
    if (m) {
        check_lines(m);
        sym_module_free(m);
    }
    /* an embedded PDB that says it is larger than it is */
    if (info.has_embedded) {
        uint8_t *copy = malloc(emb_len);
        memcpy(copy, emb, emb_len);
        copy[info.embedded_off + 4] ^= 1;
        free(inflated);
        inflated = NULL;
        CHECK_EQ(pe_debug_inflate_embedded(copy, emb_len, &info, &inflated, &inflated_len, err, sizeof(err)), -1);
        CHECK(contains(err, "not the size it declares"));
        free(copy);
    }
out:
    free(inflated);
    free(dll);
    free(pdb);
    free(emb);
    free(other);
}
