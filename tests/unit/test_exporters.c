/* test_exporters.c - the speedscope and pprof exporters on a small profile
 * made by hand: the speedscope output is valid JSON with the fields
 * speedscope needs; the pprof output inflates and decodes (with the tiny
 * protobuf decoder of pprof_decode.h) to the expected samples, values,
 * strings and functions. */
#include "unit.h"
#include "pprof_decode.h"
#include "report/formats.h"
#include "report/json.h"
#include "report/report.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- a small profile ---- */

enum { NFRAMES = 5 };
static const char *const frame_names[NFRAMES] = {
    "App.Main", "App.Work", "App.Leaf \"quoted\"\n", "App.Other", "App.Bad\xff",
};

typedef struct fixture {
    rp_profile p;
    uint32_t stacks[8][4];
} fixture;

/* Thread 0 "main" (4 samples: [0,1,2] x3, [0,1]); thread 1 "worker" (3: [0,3] x2 and one without frames).
 * Their cpu_ns: main 4+6+3+9 = 22 ms, worker 1+2+5 = 8 ms: 30 ms of CPU time, in a window of 70 ms
 * sampled at the 100 Hz asked (7 ticks). */
static const uint64_t cpu_ms[] = { 4, 6, 1, 3, 2, 5, 9 };
static void make_profile(fixture *fx, enum rp_view view)
{
    static const struct { uint64_t t; uint32_t thread, n, f[3]; } in[] = {
        { 1000, 0, 3, { 0, 1, 2 } }, { 2000, 0, 3, { 0, 1, 2 } }, { 3000, 1, 2, { 0, 3 } },
        { 4000, 0, 2, { 0, 1 } },    { 5000, 1, 0, { 0 } },       { 6000, 1, 2, { 0, 3 } },
        { 7000, 0, 3, { 0, 1, 2 } },
    };
    rp_profile *p = &fx->p;
    size_t n = sizeof(in) / sizeof(in[0]);

    memset(fx, 0, sizeof(*fx));
    p->view = view;
    p->period_ns = 10000000;
    p->nframes = NFRAMES;
    p->frames = malloc(NFRAMES * sizeof(char *));
    for (size_t i = 0; i < NFRAMES; i++)
        p->frames[i] = (char *)frame_names[i];
    p->nthreads = 2;
    p->threads = calloc(2, sizeof(rp_pthread));
    p->threads[0].name = "main";
    p->threads[0].os_tid = 100;
    p->threads[0].samples = 4;
    p->threads[0].cpu_ns = 22000000;
    p->threads[1].name = "worker";
    p->threads[1].os_tid = 200;
    p->threads[1].samples = 3;
    p->threads[1].cpu_ns = 8000000;
    p->cpu_ns = 30000000;
    p->duration_ns = 70000000;
    p->ticks = 7;
    p->rate_hz = 100.0;
    p->nsamples = n;
    p->total_samples = n;
    p->samples = calloc(n, sizeof(rp_sample));
    for (size_t i = 0; i < n; i++) {
        p->samples[i].t = in[i].t;
        p->samples[i].thread = in[i].thread;
        p->samples[i].nframes = in[i].n;
        p->samples[i].cpu_ns = cpu_ms[i] * 1000000;
        memcpy(fx->stacks[i], in[i].f, sizeof(in[i].f));
        p->samples[i].frames = fx->stacks[i];
    }
}

static void free_profile(fixture *fx)
{
    free(fx->p.frames);
    free(fx->p.threads);
    free(fx->p.samples);
}

/* Runs an exporter into memory; *len gets the size.  Returns the bytes (free them) or NULL. */
static char *run_exporter(int (*fn)(const rp_profile *, const char *, FILE *), const rp_profile *p,
                          const char *title, size_t *len, int *rc)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    *rc = fn(p, title, f);
    fclose(f);
    return buf;
}

/* ---- a JSON syntax check ---- */

static const char *json_value(const char *s, int depth);

static const char *json_ws(const char *s)
{
    while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
        s++;
    return s;
}

static const char *json_str_end(const char *s)
{
    if (*s != '"')
        return NULL;
    for (s++; *s != '"'; s++) {
        if (!*s || (unsigned char)*s < 0x20)
            return NULL;
        if (*s == '\\') {
            s++;
            if (*s == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
                        return NULL;
                s += 4;
            } else if (!*s || !strchr("\"\\/bfnrt", *s)) {
                return NULL;
            }
        }
    }
    return s + 1;
}

static const char *json_value(const char *s, int depth)
{
    s = json_ws(s);
    if (depth > 64)
        return NULL;
    if (*s == '{' || *s == '[') {
        char close = *s == '{' ? '}' : ']';
        int obj = *s == '{';
        s = json_ws(s + 1);
        if (*s == close)
            return s + 1;
        for (;;) {
            if (obj) {
                s = json_str_end(json_ws(s));
                if (!s)
                    return NULL;
                s = json_ws(s);
                if (*s++ != ':')
                    return NULL;
            }
            s = json_value(s, depth + 1);
            if (!s)
                return NULL;
            s = json_ws(s);
            if (*s == close)
                return s + 1;
            if (*s++ != ',')
                return NULL;
        }
    }
    if (*s == '"')
        return json_str_end(s);
    if (*s == '-' || (*s >= '0' && *s <= '9')) {
        char *end;
        strtod(s, &end);
        return end > s ? end : NULL;
    }
    if (strncmp(s, "true", 4) == 0 || strncmp(s, "null", 4) == 0)
        return s + 4;
    if (strncmp(s, "false", 5) == 0)
        return s + 5;
    return NULL;
}

static int json_valid(const char *s)
{
    s = json_value(s, 0);
    return s && *json_ws(s) == '\0';
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *q = strstr(hay, needle); q; q = strstr(q + 1, needle))
        n++;
    return n;
}

/* ---- JSON strings ---- */

static char *json_of(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    json_string(f, s);
    fclose(f);
    return buf;
}

#define CHECK_JSON(in, want) do { char *got_ = json_of(in); CHECK_STR(got_, want); \
                                  CHECK(got_ && json_valid(got_)); free(got_); } while (0)

TEST(exporters_json_string_escapes_every_control)
{
    CHECK_JSON("plain \xc3\xa9 \xe6\x97\xa5", "\"plain \xc3\xa9 \xe6\x97\xa5\"");
    CHECK_JSON("q\"b\\", "\"q\\\"b\\\\\"");
    CHECK_JSON("\x1b[31m\r\n\t\x01", "\"\\u001b[31m\\r\\n\\t\\u0001\"");
    CHECK_JSON("del\x7f c1\xc2\x85\xc2\x9b", "\"del\\u007f c1\\u0085\\u009b\"");
    CHECK_JSON("a\xe2\x80\xa8" "b\xe2\x80\xae" "c\xe2\x81\xa6", "\"a\\u2028b\\u202ec\\u2066\"");
    CHECK_JSON("nul\xc0\x80tail", "\"nul\\u0000tail\"");            /* the model's NUL */
    CHECK_JSON("bad\xff\xc0", "\"bad\\ufffd\\ufffd\"");
}

/* ---- the text outputs escape names ---- */

static const char hostile[] = "\x1b[31mw;k\r\n  runtime    .NET 99\xc0\x80tail\xe2\x80\xae";

/* Whether text holds a control character other than the line ends. */
static int has_controls(const char *text)
{
    for (const unsigned char *s = (const unsigned char *)text; *s; s++)
        if ((*s < 0x20 && *s != '\n') || *s == 0x7f)
            return 1;
    return 0;
}

static char *collapsed_of(const rp_profile *p, int by_thread)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    CHECK_EQ(rp_write_collapsed(p, by_thread, f), 0);
    fclose(f);
    return buf;
}

TEST(exporters_collapsed_escapes_names)
{
    fixture fx;
    char *out;

    make_profile(&fx, RP_VIEW_CPU);
    fx.p.threads[1].name = hostile;
    fx.p.frames[3] = "App.Other;Fake.Frame";
    out = collapsed_of(&fx.p, 1);
    CHECK(out != NULL);
    if (out) {
        CHECK(!has_controls(out));
        CHECK(strstr(out, "\\x1b[31mw\\x3bk\\r\\n  runtime    .NET 99\\0tail\\u202e;App.Main;"
                          "App.Other\\x3bFake.Frame 2\n") != NULL);
        CHECK(strstr(out, "main;App.Main;App.Work;App.Leaf \"quoted\"\\n 3\n") != NULL);
        CHECK(strstr(out, "App.Bad\\xff") == NULL);        /* (not sampled) */
        CHECK_EQ(count_of(out, "\n"), 4);                   /* one line per stack */
        CHECK_EQ(count_of(out, ";"), 3 + 2 + 2 + 0);         /* only the separators */
        free(out);
    }
    out = collapsed_of(&fx.p, 0);
    CHECK(out != NULL);
    if (out) {
        CHECK(!has_controls(out));
        CHECK_EQ(count_of(out, "\n"), 4);
        free(out);
    }
    free_profile(&fx);
}

TEST(exporters_profile_text_escapes_names)
{
    fixture fx;
    char *out = NULL;
    size_t len = 0;
    FILE *f;

    make_profile(&fx, RP_VIEW_CPU);
    fx.p.threads[1].name = hostile;
    f = open_memstream(&out, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    rp_write_profile_text(&fx.p, f);
    rp_write_profile_threads(&fx.p, f);
    fclose(f);
    CHECK(!has_controls(out));
    CHECK(strstr(out, "\n  Thread \\x1b[31mw;k\\r\\n  runtime    .NET 99\\0tail\\u202e: 3 samples, 0.01 s of CPU time")
          != NULL);
    CHECK(strstr(out, "%  App.Leaf \"quoted\"\\n\n") != NULL);
    CHECK(strstr(out, "\n  runtime") == NULL);
    free(out);
    free_profile(&fx);
}

/* ---- html: names cannot leave the <script> element that holds the data ---- */

TEST(exporters_html_names_cannot_close_the_script)
{
    fixture fx;
    size_t len = 0, plain_len = 0;
    int rc = -1;
    char *plain, *out;

    make_profile(&fx, RP_VIEW_CPU);
    plain = run_exporter(rp_write_html, &fx.p, "t.clrp", &plain_len, &rc);
    CHECK_EQ(rc, 0);
    fx.p.frames[3] = "App.</script><script>alert(1)</script><!--";
    fx.p.threads[1].name = hostile;
    out = run_exporter(rp_write_html, &fx.p, "t.clrp", &len, &rc);
    CHECK_EQ(rc, 0);
    CHECK(plain != NULL && out != NULL);
    if (plain && out) {
        CHECK_EQ(count_of(out, "</script"), count_of(plain, "</script"));   /* only the page's own */
        CHECK_EQ(count_of(out, "<script"), count_of(plain, "<script"));
        CHECK_EQ(count_of(out, "<!--"), count_of(plain, "<!--"));
        CHECK(strstr(out, "App.\\u003c/script\\u003e\\u003cscript\\u003ealert(1)") != NULL);
        CHECK(strstr(out, "\\u001b[31mw;k\\r\\n  runtime    .NET 99\\u0000tail\\u202e") != NULL);
        CHECK(!has_controls(out));
    }
    free(plain);
    free(out);
    free_profile(&fx);
}

/* ---- speedscope ---- */

TEST(exporters_speedscope_fields)
{
    fixture fx;
    size_t len;
    int rc = -2;
    char *out;

    make_profile(&fx, RP_VIEW_CPU);
    out = run_exporter(rp_write_speedscope, &fx.p, "trace \"x\".clrp", &len, &rc);
    CHECK(out != NULL);
    if (!out) {
        free_profile(&fx);
        return;
    }
    CHECK_EQ(rc, 0);
    CHECK_EQ(strlen(out), len);
    CHECK(json_valid(out));
    CHECK(strstr(out, "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\"") != NULL);
    CHECK(strstr(out, "\"exporter\":\"clrprobe\"") != NULL);
    CHECK(strstr(out, "\"activeProfileIndex\":0") != NULL);
    CHECK(strstr(out, "\"name\":\"trace \\\"x\\\".clrp: ") != NULL);  /* the title, then the totals */
    /* the frames: escaped, invalid UTF-8 replaced, plus the pseudo-frame for the empty stack */
    CHECK(strstr(out, "\"shared\":{\"frames\":[") != NULL);
    CHECK(strstr(out, "{\"name\":\"App.Main\"}") != NULL);
    CHECK(strstr(out, "{\"name\":\"App.Leaf \\\"quoted\\\"\\n\"}") != NULL);
    CHECK(strstr(out, "{\"name\":\"App.Bad\\ufffd\"}") != NULL);
    CHECK(strstr(out, "{\"name\":\"[no managed frames]\"}") != NULL);
    CHECK_EQ(count_of(out, "{\"name\":"), NFRAMES + 1);
    /* one sampled profile per thread, in time order, weights in nanoseconds: each sample's cpu_ns */
    CHECK_EQ(count_of(out, "\"type\":\"sampled\""), 2);
    CHECK_EQ(count_of(out, "\"unit\":\"nanoseconds\""), 2);
    CHECK(strstr(out, "\"type\":\"sampled\",\"name\":\"main\",\"unit\":\"nanoseconds\",\"startValue\":0,"
                      "\"endValue\":22000000,") != NULL);
    CHECK(strstr(out, "\"type\":\"sampled\",\"name\":\"worker\",\"unit\":\"nanoseconds\",\"startValue\":0,"
                      "\"endValue\":8000000,") != NULL);
    CHECK(strstr(out, "\"samples\":[[0,1,2],[0,1,2],[0,1],[0,1,2]],") != NULL);
    CHECK(strstr(out, "\"weights\":[4000000,6000000,3000000,9000000]") != NULL);
    CHECK(strstr(out, "\"samples\":[[0,3],[5],[0,3]],") != NULL);
    CHECK(strstr(out, "\"weights\":[1000000,2000000,5000000]") != NULL);
    free(out);
    free_profile(&fx);
}

TEST(exporters_speedscope_many_samples_and_empty)
{
    fixture fx;
    rp_sample *many;
    size_t len, n = 1000;
    int rc = -2;
    char *out;

    /* many samples: line breaks inside the arrays keep it valid */
    make_profile(&fx, RP_VIEW_WALL);
    many = calloc(n, sizeof(*many));
    for (size_t i = 0; i < n; i++) {
        many[i] = fx.p.samples[i % fx.p.nsamples];
        many[i].t = i;
    }
    free(fx.p.samples);
    fx.p.samples = many;
    fx.p.nsamples = n;
    out = run_exporter(rp_write_speedscope, &fx.p, "t", &len, &rc);
    CHECK_EQ(rc, 0);
    CHECK(out && json_valid(out));
    free(out);

    /* no samples at all (the CLI refuses these, the exporter copes) */
    fx.p.nsamples = 0;
    fx.p.nthreads = 0;
    fx.p.nframes = 0;
    out = run_exporter(rp_write_speedscope, &fx.p, NULL, &len, &rc);
    CHECK_EQ(rc, 0);
    CHECK(out && json_valid(out));
    CHECK(out && strstr(out, "\"profiles\":[]") != NULL);
    free(out);
    free_profile(&fx);
}

/* ---- pprof ---- */

static int decode_output(const rp_profile *p, const char *title, dprof *d)
{
    size_t len = 0;
    int rc = -2;
    char *out = run_exporter(rp_write_pprof, p, title, &len, &rc);

    CHECK_EQ(rc, 0);
    CHECK(out != NULL);
    rc = decode_profile_gz(out, len, d);       /* (also checks the gzip magic) */
    free(out);
    CHECK(!d->bad);
    return rc;
}

TEST(exporters_pprof_decodes)
{
    fixture fx;
    dprof d;
    int64_t total_count = 0, total_ns = 0;

    make_profile(&fx, RP_VIEW_CPU);
    if (decode_output(&fx.p, "trace.clrp", &d) != 0) {
        free_dprof(&d);
        free_profile(&fx);
        return;
    }
    CHECK(d.nstrings > 0);
    CHECK_STR(str_at(&d, 0), "");
    /* sample types, period */
    CHECK_EQ(d.nst, 2);
    CHECK_STR(str_at(&d, d.st_type[0]), "samples");
    CHECK_STR(str_at(&d, d.st_unit[0]), "count");
    CHECK_STR(str_at(&d, d.st_type[1]), "cpu");
    CHECK_STR(str_at(&d, d.st_unit[1]), "nanoseconds");
    CHECK_STR(str_at(&d, d.pt_type), "cpu");
    CHECK_STR(str_at(&d, d.pt_unit), "nanoseconds");
    CHECK_STR(str_at(&d, d.default_type), "cpu");
    CHECK_EQ(d.period, 10000000);
    CHECK_EQ(d.duration, 70000000);
    CHECK_EQ(d.ncomment, 2);
    CHECK_STR(str_at(&d, d.comment), "trace.clrp");
    CHECK_STR(str_at(&d, d.comment2), "0.03 s of CPU time in 0.07 s (0.43 CPUs on average); "
                                      "rate: 100.0 ticks/s achieved of 100.0 asked (every 10.0 ms)");
    /* functions and locations: one per frame name, plus the empty stack's pseudo-frame */
    CHECK_EQ(d.nfn, NFRAMES + 1);
    CHECK_EQ(d.nloc, NFRAMES + 1);
    CHECK_STR(fn_name_of_loc(&d, 1), "App.Main");
    CHECK_STR(fn_name_of_loc(&d, 3), "App.Leaf \"quoted\"\\n");     /* escaped for the terminal */
    CHECK_STR(fn_name_of_loc(&d, 5), "App.Bad\\xff");
    CHECK_STR(fn_name_of_loc(&d, 6), "[no managed frames]");
    /* samples: aggregated by (thread, stack), values [count, measured cpu_ns], leaf first */
    CHECK_EQ(d.nsamples, 4);
    for (int i = 0; i < d.nsamples; i++) {
        const dsample *s = &d.samples[i];
        CHECK_EQ(s->nval, 2);
        total_count += s->val[0];
        total_ns += s->val[1];
        CHECK_EQ(s->nlabel, 2);
        CHECK_STR(str_at(&d, s->label_key[0]), "thread");
        CHECK_STR(str_at(&d, s->label_key[1]), "thread_id");
    }
    CHECK_EQ(total_count, 7);
    CHECK_EQ(total_ns, 30000000);            /* the profile's cpu_ns, not samples x period */
    if (d.nsamples == 4) {
        const dsample *s = &d.samples[0];      /* first seen: main [Main, Work, Leaf] x3 */
        CHECK_EQ(s->val[0], 3);
        CHECK_EQ(s->val[1], 19000000);
        CHECK_EQ(s->nloc, 3);
        CHECK_STR(fn_name_of_loc(&d, s->loc[0]), "App.Leaf \"quoted\"\\n");
        CHECK_STR(fn_name_of_loc(&d, s->loc[1]), "App.Work");
        CHECK_STR(fn_name_of_loc(&d, s->loc[2]), "App.Main");
        CHECK_STR(str_at(&d, s->label_str[0]), "main");
        CHECK_EQ(s->label_num[1], 100);
        s = &d.samples[1];                     /* worker [Main, Other] x2 */
        CHECK_EQ(s->val[0], 2);
        CHECK_EQ(s->nloc, 2);
        CHECK_STR(fn_name_of_loc(&d, s->loc[0]), "App.Other");
        CHECK_STR(str_at(&d, s->label_str[0]), "worker");
        CHECK_EQ(s->label_num[1], 200);
        s = &d.samples[2];                     /* main [Main, Work] */
        CHECK_EQ(s->val[0], 1);
        CHECK_EQ(s->nloc, 2);
        CHECK_STR(fn_name_of_loc(&d, s->loc[0]), "App.Work");
        s = &d.samples[3];                     /* worker, no frames */
        CHECK_EQ(s->val[0], 1);
        CHECK_EQ(s->nloc, 1);
        CHECK_STR(fn_name_of_loc(&d, s->loc[0]), "[no managed frames]");
        CHECK_STR(str_at(&d, s->label_str[0]), "worker");
    }
    free_dprof(&d);
    free_profile(&fx);
}

TEST(exporters_pprof_wall_view)
{
    fixture fx;
    dprof d;

    make_profile(&fx, RP_VIEW_WALL);
    fx.p.period_ns = 1234567;
    if (decode_output(&fx.p, NULL, &d) == 0) {
        CHECK_STR(str_at(&d, 0), "");
        CHECK_STR(str_at(&d, d.st_type[1]), "wall");
        CHECK_STR(str_at(&d, d.pt_type), "wall");
        CHECK_EQ(d.period, 1234567);
        CHECK_EQ(d.nsamples, 4);
        CHECK_EQ(d.samples[0].val[1], 3 * 1234567);
    }
    free_dprof(&d);
    free_profile(&fx);
}

TEST(exporters_pprof_large_and_empty)
{
    fixture fx;
    dprof d;
    rp_sample *many;
    size_t n = 200000, len;
    int rc = -2;
    char *out;

    /* many samples over a few stacks: aggregated, output stays small */
    make_profile(&fx, RP_VIEW_CPU);
    many = calloc(n, sizeof(*many));
    for (size_t i = 0; i < n; i++) {
        many[i] = fx.p.samples[i % fx.p.nsamples];
        many[i].t = i;
    }
    free(fx.p.samples);
    fx.p.samples = many;
    fx.p.nsamples = n;
    if (decode_output(&fx.p, "big", &d) == 0) {
        int64_t total = 0;
        CHECK_EQ(d.nsamples, 4);
        for (int i = 0; i < d.nsamples; i++)
            total += d.samples[i].val[0];
        CHECK_EQ(total, (int64_t)n);
        CHECK_EQ(d.duration, 70000000);        /* the profile's window, whatever the samples' times */
    }
    free_dprof(&d);
    out = run_exporter(rp_write_pprof, &fx.p, "big", &len, &rc);
    CHECK_EQ(rc, 0);
    CHECK(len < 4096);
    free(out);

    /* no samples */
    fx.p.nsamples = 0;
    fx.p.nthreads = 0;
    if (decode_output(&fx.p, "none", &d) == 0) {
        CHECK_STR(str_at(&d, 0), "");
        CHECK_EQ(d.nsamples, 0);
        CHECK_EQ(d.nfn, NFRAMES);
    }
    free_dprof(&d);
    free_profile(&fx);
}

TEST(exporters_report_io_errors)
{
    fixture fx;
    FILE *f;

    make_profile(&fx, RP_VIEW_CPU);
    f = fopen("/dev/full", "w");
    if (f) {
        setvbuf(f, NULL, _IONBF, 0);
        CHECK_EQ(rp_write_speedscope(&fx.p, "t", f), -1);
        clearerr(f);
        CHECK_EQ(rp_write_pprof(&fx.p, "t", f), -1);
        fclose(f);
    }
    free_profile(&fx);
}

/* ---- the registry (formats.h) ---- */

TEST(exporters_registry_lists_every_format_once)
{
    static const char *const names[] = { "text", "jsonl", "collapsed", "speedscope", "pprof", "html", "chrome", "heapsnapshot" };
    size_t n = 0;

    for (const rp_format *f = rp_formats; f->name; f++, n++) {
        CHECK(n < sizeof(names) / sizeof(names[0]));
        if (n < sizeof(names) / sizeof(names[0]))
            CHECK(strcmp(f->name, names[n]) == 0);
        CHECK(rp_format_find(f->name) == f);
        CHECK(f->description && f->description[0] && f->write);
        CHECK(f->description[strlen(f->description) - 1] != '\n');
        /* samples are shown from a profile */
        CHECK(!(f->needs & RP_NEED_SAMPLES) || (f->needs & RP_NEED_PROFILE));
    }
    CHECK_EQ(n, sizeof(names) / sizeof(names[0]));
    CHECK(rp_format_find("nope") == NULL);
    CHECK(rp_format_find("") == NULL);
    CHECK(rp_format_find("HTML") == NULL);
    CHECK_EQ(rp_format_find("text")->needs, RP_NEED_EVENTS | RP_NEED_PROFILE);
    CHECK_EQ(rp_format_find("jsonl")->needs, RP_NEED_EVENTS);
    CHECK_EQ(rp_format_find("pprof")->needs, RP_NEED_PROFILE | RP_NEED_SAMPLES);
}

/* What each format offers besides its report (formats.h, enum rp_cap): the
 * command decides --why/--diff, --heap, the heap-only view, the children's
 * list and the several traces' report by these, never by a name. */
TEST(exporters_registry_caps)
{
    static const struct {
        const char *name;
        unsigned caps;
        int many;   /* a write_many of its own */
    } want[] = {
        { "text", RP_HEAP_QUESTIONS | RP_LISTS_CHILDREN, 1 },
        { "jsonl", RP_HEAP_QUESTIONS, 0 },
        { "collapsed", RP_BY_THREAD_OPTION, 0 },
        { "speedscope", 0, 0 },
        { "pprof", RP_HEAP_PROFILE_OPTION | RP_HEAP_ONLY_VIEW | RP_BINARY | RP_ALWAYS_LINES, 0 },
        { "html", RP_HEAP_ONLY_VIEW, 0 },
        { "heapsnapshot", 0, 0 },
    };

    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const rp_format *f = rp_format_find(want[i].name);
        CHECK(f != NULL);
        if (!f)
            continue;
        CHECK_EQ(f->caps, want[i].caps);
        CHECK_EQ(f->write_many != NULL, want[i].many);
    }
    for (const rp_format *f = rp_formats; f->name; f++) {
        /* the heap-only view stands in for the samples a format needs */
        CHECK(!(f->caps & RP_HEAP_ONLY_VIEW) || (f->needs & RP_NEED_SAMPLES));
        /* several traces are read through their merged profile */
        CHECK(!f->write_many || (f->needs & RP_NEED_PROFILE));
    }
}

/* A profile format's registry writer writes what its own writer does. */
static void check_same_as(const char *name, int (*fn)(const rp_profile *, const char *, FILE *), const fixture *fx)
{
    rp_report_input in = { .profile = &fx->p, .path = "dir/t.clrp", .title = "t.clrp" };
    const rp_format *f = rp_format_find(name);
    char *direct, *via = NULL;
    size_t len = 0, via_len = 0;
    int rc = -1;
    FILE *m;

    CHECK(f != NULL);
    if (!f)
        return;
    direct = run_exporter(fn, &fx->p, "t.clrp", &len, &rc);
    CHECK_EQ(rc, 0);
    m = open_memstream(&via, &via_len);
    CHECK(m != NULL);
    if (m) {
        CHECK_EQ(f->write(&in, m), 0);
        fclose(m);
        CHECK(direct != NULL && via != NULL && len == via_len && memcmp(direct, via, len) == 0);
    }
    free(direct);
    free(via);
}

TEST(exporters_registry_writers_are_the_formats_writers)
{
    fixture fx;
    rp_report_input in = { .path = "dir/t.clrp", .title = "t.clrp", .by_thread = 1 };
    char *via = NULL, *direct;
    size_t via_len = 0;
    FILE *m;

    make_profile(&fx, RP_VIEW_CPU);
    check_same_as("speedscope", rp_write_speedscope, &fx);
    check_same_as("pprof", rp_write_pprof, &fx);
    check_same_as("html", rp_write_html, &fx);
    in.profile = &fx.p;
    m = open_memstream(&via, &via_len);
    CHECK(m != NULL);
    if (m) {
        CHECK_EQ(rp_format_find("collapsed")->write(&in, m), 0);
        fclose(m);
        direct = collapsed_of(&fx.p, 1);
        CHECK(direct != NULL && via != NULL && strcmp(direct, via) == 0);
        free(direct);
        free(via);
    }
    free_profile(&fx);
}

/* ---- every format states the same totals (docs/sampling.md, "What the totals mean") ---- */

/* The sum of the numbers after each "key" in s. */
static uint64_t sum_after(const char *s, const char *key)
{
    uint64_t sum = 0;
    for (const char *at = strstr(s, key); at; at = strstr(at + 1, key))
        sum += strtoull(at + strlen(key), NULL, 10);
    return sum;
}

static void check_totals(enum rp_view view, uint64_t ticks, uint64_t total_ns, const char *text_line,
                         const char *rate_line, int low)
{
    fixture fx;
    dprof d;
    char *out = NULL, key[64];
    size_t len = 0;
    int rc = -2;
    FILE *f;

    make_profile(&fx, view);
    fx.p.ticks = ticks;
    fx.p.rate_hz = (double)ticks * 1e9 / (double)fx.p.duration_ns;
    CHECK_EQ(rp_profile_total(&fx.p), total_ns);
    CHECK_EQ(rp_profile_rate_low(&fx.p), low);
    /* text */
    f = open_memstream(&out, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    rp_write_profile_text(&fx.p, f);
    fclose(f);
    CHECK(strstr(out, text_line) != NULL);
    CHECK(strstr(out, rate_line) != NULL);
    CHECK_EQ(strstr(out, "warning: below 90% of the rate asked") != NULL, low);
    free(out);
    /* speedscope: the profiles' endValues and the weights add up to the total */
    out = run_exporter(rp_write_speedscope, &fx.p, "t", &len, &rc);
    CHECK_EQ(rc, 0);
    if (out) {
        CHECK_EQ(sum_after(out, "\"endValue\":"), total_ns);
        free(out);
    }
    /* pprof: the second values add up to the total (what `go tool pprof` calls Total samples),
     * duration_nanos is the window, the comment has the text's lines */
    if (decode_output(&fx.p, "t", &d) == 0) {
        uint64_t sum = 0;
        for (int i = 0; i < d.nsamples; i++)
            sum += (uint64_t)d.samples[i].val[1];
        CHECK_EQ(sum, total_ns);
        CHECK_EQ(d.duration, 70000000);
        CHECK(strstr(str_at(&d, d.comment2), text_line + 2) != NULL);
        CHECK(strstr(str_at(&d, d.comment2), rate_line) != NULL);
    }
    free_dprof(&d);
    /* html: the data the page's header and tooltips read */
    out = run_exporter(rp_write_html, &fx.p, "t", &len, &rc);
    CHECK_EQ(rc, 0);
    if (out) {
        snprintf(key, sizeof(key), "\"total_ns\":%" PRIu64 ",", total_ns);
        CHECK(strstr(out, key) != NULL);
        CHECK(strstr(out, "\"cpu_ns\":30000000,") != NULL);
        CHECK(strstr(out, "\"duration_ns\":70000000,") != NULL);
        CHECK(strstr(out, low ? "\"rate_low\":true" : "\"rate_low\":false") != NULL);
        CHECK_EQ(sum_after(out, "\"tid\":"), 300);                /* (the threads are there) */
        free(out);
    }
    free_profile(&fx);
}

TEST(exporters_all_formats_state_the_same_totals)
{
    /* CPU view: 30 ms measured by the threads' CPU clocks, in 70 ms; 7 ticks of the 7 asked */
    check_totals(RP_VIEW_CPU, 7, 30000000, "  0.03 s of CPU time in 0.07 s (0.43 CPUs on average)",
                 "rate: 100.0 ticks/s achieved of 100.0 asked (every 10.0 ms)", 0);
    /* 6 of 7 ticks: 85.7%, below 90% */
    check_totals(RP_VIEW_CPU, 6, 30000000, "  0.03 s of CPU time in 0.07 s",
                 "rate: 85.7 ticks/s achieved of 100.0 asked (every 10.0 ms)", 1);
    /* wall view: the thread time, 7 samples x 10 ms, beside the same CPU time */
    check_totals(RP_VIEW_WALL, 7, 70000000,
                 "  0.07 s of thread time (7 samples x 10.0 ms, running or waiting) in 0.07 s; 0.03 s of CPU time",
                 "rate: 100.0 ticks/s achieved", 0);
}
