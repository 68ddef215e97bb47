/* test_source_lines.c - the report's source lines on a made trace whose
 * module is the tiny library of tests/data/pdb (its PDB beside it, its
 * lines known from test_pdb.c): samples of PdbLib's SumTo (token
 * 0x06000002) at IL offsets 2 (line 18, three samples) and 6 (line 20, one),
 * called from Twice (0x06000001, line 12), in the wall view (every sample
 * counted once).  Checked: a frame per line with
 * RP_PROFILE_LINES and its label, the plain frames' file and first line
 * without it, the text's hot lines, speedscope's file and line, `report
 * --lines` through the command, and a module whose assembly is missing
 * (frames as before, the note naming it). */
#include "unit.h"
#include "synth_trace.h"
#include "report/formats.h"
#include "report/profile.h"
#include "report/source_lines.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUMTO 0x1000
#define TWICE 0x2000
#define MODULE 0x500

/* The trace: the module at path, the two functions named with their
 * tokens, four samples. */
static int made_trace(const char *name, const char *module_path, rp_trace *tr, synth *s)
{
    static const uint64_t frames[] = { SUMTO, TWICE };
    static const uint32_t il_18[] = { 2, 0 }, il_20[] = { 6, 0 };

    synth_begin(s, name);
    synth_put(s, 0, TK_MODULE_LOAD, &(rec_any){ .module_load = { .id = MODULE, .path = module_path } });
    synth_put(s, 1, TK_FUNC_NAME, &(rec_any){ .function_name = { .function = SUMTO, .module = MODULE,
                                                                 .name = "PdbLib.Calc.SumTo", .token = 0x06000002 } });
    synth_put(s, 1, TK_FUNC_NAME, &(rec_any){ .function_name = { .function = TWICE, .module = MODULE,
                                                                 .name = "PdbLib.Calc.Twice", .token = 0x06000001 } });
    for (int i = 0; i < 4; i++) {
        synth_put(s, 10 + (uint64_t)i, TK_SAMPLE, &(rec_any){ .sample = {
            .thread = 1, .os_tid = 7, .cpu_ns = 10000000, .nframes = 2, .frames = frames,
            .nil = 2, .il = i < 3 ? il_18 : il_20 } });
        synth_put(s, 10 + (uint64_t)i, TK_SAMPLER_TICK, &(rec_any){ .sampler_tick = { .threads = 1,
                                                                                        .period_ns = 10000000 } });
    }
    return synth_load(s, tr);
}

static long frame_named(const rp_profile *p, const char *name)
{
    for (size_t f = 0; f < p->nframes; f++)
        if (strcmp(p->frames[f], name) == 0)
            return (long)f;
    return -1;
}

static uint64_t leaf_samples(const rp_profile *p, long f)
{
    uint64_t n = 0;
    for (size_t i = 0; i < p->nsamples; i++)
        n += p->samples[i].nframes && p->samples[i].frames[p->samples[i].nframes - 1] == (uint32_t)f;
    return n;
}

static const char *library_path(char *buf)
{
    return realpath("tests/data/pdb/portable/PdbLib.dll", buf);
}

TEST(source_lines_a_frame_per_line)
{
    char dll[PATH_MAX];
    synth s;
    rp_trace tr;
    rp_profile p;
    long f18, f20, f12;

    CHECK(library_path(dll) != NULL);
    if (!library_path(dll) || made_trace("lines", dll, &tr, &s) != TRACE_OK)
        return;
    CHECK((tr.lines = rp_lines_new(&tr, NULL)) != NULL);
    if (rp_profile_build_opts(&tr, RP_VIEW_WALL, NULL, RP_PROFILE_LINES, &p) == 0) {
        f18 = frame_named(&p, "PdbLib.Calc.SumTo (Calc.cs:18)");
        f20 = frame_named(&p, "PdbLib.Calc.SumTo (Calc.cs:20)");
        f12 = frame_named(&p, "PdbLib.Calc.Twice (Calc.cs:12)");
        CHECK(f18 >= 0 && f20 >= 0 && f12 >= 0);
        if (f18 >= 0 && f20 >= 0) {
            CHECK_EQ(leaf_samples(&p, f18), 3);
            CHECK_EQ(leaf_samples(&p, f20), 1);
            CHECK(p.sources != NULL);
            if (p.sources) {
                CHECK_STR(p.sources[f18].name, "PdbLib.Calc.SumTo");      /* the name apart, for pprof */
                CHECK_STR(p.sources[f18].file, "/src/pdblib/Calc.cs");    /* as the PDB names it */
                CHECK_STR(p.sources[f18].base, "Calc.cs");
                CHECK_EQ(p.sources[f18].line, 18);
                CHECK_EQ(p.sources[f18].at_line, 1);
                CHECK_STR(rp_frame_plain(&p, (size_t)f20), "PdbLib.Calc.SumTo");
            }
        }
        rp_profile_free(&p);
    }
    /* without the option: one frame per method, with its file and first line */
    if (rp_profile_build_opts(&tr, RP_VIEW_WALL, NULL, 0, &p) == 0) {
        long f = frame_named(&p, "PdbLib.Calc.SumTo");
        CHECK(f >= 0);
        CHECK(p.sources != NULL);
        if (f >= 0 && p.sources) {
            CHECK_EQ(leaf_samples(&p, f), 4);
            CHECK_STR(p.sources[f].base, "Calc.cs");
            CHECK_EQ(p.sources[f].line, 17);             /* SumTo's first visible sequence point */
            CHECK_EQ(p.sources[f].at_line, 0);
        }
        rp_profile_free(&p);
    }
    CHECK_EQ(rp_lines_found(tr.lines) > 0, 1);
    synth_done(&s, &tr);
}

/* Through the command: --lines in collapsed, the hot lines in text,
 * speedscope's fields; and with the assembly gone, frames as before. */
TEST(source_lines_in_the_formats)
{
    char dll[PATH_MAX], *out = NULL, *err = NULL;
    synth s;
    rp_trace tr;
    size_t len = 0;

    if (!library_path(dll) || made_trace("lines-cli", dll, &tr, &s) != TRACE_OK) {
        CHECK(0);
        return;
    }
    {
        const char *args[] = { s.path, "--view", "wall", "--lines", "--format", "collapsed", NULL };
        CHECK_EQ(synth_report(args, &out, &len, &err), 0);
        CHECK(out && strstr(out, "PdbLib.Calc.Twice (Calc.cs:12);PdbLib.Calc.SumTo (Calc.cs:18) 3\n"));
        CHECK(out && strstr(out, "PdbLib.Calc.Twice (Calc.cs:12);PdbLib.Calc.SumTo (Calc.cs:20) 1\n"));
        free(out);
        free(err);
    }
    {
        const char *args[] = { s.path, "--view", "wall", NULL };
        CHECK_EQ(synth_report(args, &out, &len, &err), 0);
        CHECK(out && strstr(out, "Hot lines (wall view)"));
        CHECK(out && strstr(out, "  PdbLib.Calc.SumTo: 4 (100.0%)\n"));
        CHECK(out && strstr(out, "           3   75.0%  Calc.cs:18\n"));
        CHECK(out && strstr(out, "           1   25.0%  Calc.cs:20\n"));
        CHECK(out && !strstr(out, "SumTo (Calc.cs"));          /* the tables by method without --lines */
        free(out);
        free(err);
    }
    {
        const char *args[] = { s.path, "--view", "wall", "--format", "speedscope", NULL };
        CHECK_EQ(synth_report(args, &out, &len, &err), 0);
        CHECK(out && strstr(out, "{\"name\":\"PdbLib.Calc.SumTo\",\"file\":\"/src/pdblib/Calc.cs\",\"line\":17}"));
        free(out);
        free(err);
    }
    synth_done(&s, &tr);

    /* the assembly is not there: frames by method, the note names it */
    if (made_trace("lines-gone", "/nonexistent/clrprobe-unit/PdbLib.dll", &tr, &s) != TRACE_OK) {
        CHECK(0);
        return;
    }
    {
        const char *args[] = { s.path, "--view", "wall", "--lines", "--format", "collapsed", NULL };
        CHECK_EQ(synth_report(args, &out, &len, &err), 0);
        CHECK(out && strstr(out, "PdbLib.Calc.Twice;PdbLib.Calc.SumTo 4\n"));
        free(out);
        free(err);
    }
    {
        const char *args[] = { s.path, "--view", "wall", NULL };
        CHECK_EQ(synth_report(args, &out, &len, &err), 0);
        CHECK(out && strstr(out, "Hot lines: none, the program's symbols were not found:"));
        CHECK(out && strstr(out, "/nonexistent/clrprobe-unit/PdbLib.dll"));
        free(out);
        free(err);
    }
    synth_done(&s, &tr);
}

/* Two processes' profiles merged (report_many.c): the frames keep their
 * sources (copied: the parts are freed first), each freed once. */
TEST(source_lines_survive_a_merge)
{
    char dll[PATH_MAX];
    synth s;
    rp_trace tr;
    rp_profile parts[2], merged;
    const char *roots[2] = { "one (pid 1)", "two (pid 2)" };

    if (!library_path(dll) || made_trace("lines-merge", dll, &tr, &s) != TRACE_OK) {
        CHECK(0);
        return;
    }
    tr.lines = rp_lines_new(&tr, NULL);
    CHECK_EQ(rp_profile_build_opts(&tr, RP_VIEW_WALL, NULL, RP_PROFILE_LINES, &parts[0]), 0);
    CHECK_EQ(rp_profile_build_opts(&tr, RP_VIEW_WALL, NULL, RP_PROFILE_LINES, &parts[1]), 0);
    CHECK_EQ(rp_profile_merge(parts, roots, NULL, 2, &merged), 0);
    rp_profile_free(&parts[0]);
    rp_profile_free(&parts[1]);
    {
        long f = frame_named(&merged, "PdbLib.Calc.SumTo (Calc.cs:18)");
        CHECK(f >= 0 && merged.sources != NULL);
        if (f >= 0 && merged.sources) {
            CHECK_EQ(leaf_samples(&merged, f), 6);
            CHECK_STR(merged.sources[f].name, "PdbLib.Calc.SumTo");
            CHECK_STR(merged.sources[f].file, "/src/pdblib/Calc.cs");
            CHECK_EQ(merged.sources[f].line, 18);
            CHECK(merged.sources[frame_named(&merged, "one (pid 1)")].file == NULL);
        }
    }
    rp_profile_free(&merged);
    synth_done(&s, &tr);
}
