/* report_many.c - `clrprobe report` over several traces or a directory
 * (the traces of a `clrprobe run` and of the processes its program
 * started): the processes are listed, and the profile formats show them
 * together with each process, "PROGRAM (pid N)", as the root frame; a
 * format with a write_many hook (formats.h) shows more of them.  Also the
 * list of a trace's children found beside it, for a format that lists them
 * after the report of one trace (RP_LISTS_CHILDREN). */
#include "cli/report_many.h"
#include "report/source_lines.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/run_follow.h"
#include "report/report.h"
#include "report/view_profiles.h"
#include "common/escape.h"
#include "trace/reader.h"
#include "report/sort.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct one {
    char path[PATH_MAX];
    rp_trace tr;
    char label[FOLLOW_NAME_MAX + 32];
} one;

/* "PROGRAM (pid N)" from the trace's command line (arguments joined by
 * spaces: good enough to find the program and a .dll). */
static void label_of(const rp_trace *tr, char *label, size_t len)
{
    char cmd[4096], name[FOLLOW_NAME_MAX + 1];
    const char *cl = tr->file.command_line ? tr->file.command_line : "";
    size_t n = strlen(cl);

    if (n >= sizeof(cmd))
        n = sizeof(cmd) - 1;
    for (size_t i = 0; i < n; i++)
        cmd[i] = cl[i] == ' ' ? '\0' : cl[i];
    cmd[n] = '\0';
    follow_program_name(cmd, n + 1, name, sizeof(name));
    snprintf(label, len, "%s (pid %u)", name, (unsigned)tr->file.pid);
}

static int is_trace_name(const char *name)
{
    size_t l = strlen(name);
    return name[0] != '.' && l > 5 && strcmp(name + l - 5, ".clrp") == 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the traces named in args (files, or directories: their *.clrp
 * files) to *list.  0, or -1 after a message. */
static int collect(char **args, size_t nargs, char ***list, size_t *n)
{
    for (size_t a = 0; a < nargs; a++) {
        struct stat st;
        if (stat(args[a], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(args[a]);
            struct dirent *de;
            size_t first = *n;
            if (!d) {
                cli_error("cannot read the directory %s: %s", args[a], strerror(errno));
                return -1;
            }
            while ((de = readdir(d))) {
                char *p, **nl;
                if (!is_trace_name(de->d_name))
                    continue;
                if (asprintf(&p, "%s/%s", args[a], de->d_name) < 0 || !(nl = realloc(*list, (*n + 1) * sizeof(*nl)))) {
                    closedir(d);
                    cli_error("out of memory");
                    return -1;
                }
                *list = nl;
                (*list)[(*n)++] = p;
            }
            closedir(d);
            if (*n == first) {
                cli_error("report: %s: it is a directory with no trace (*.clrp) in it", args[a]);
                return -1;
            }
            rp_sort(*list + first, *n - first, sizeof(**list), by_name);
        } else {
            char *p = strdup(args[a]), **nl = realloc(*list, (*n + 1) * sizeof(*nl));
            if (!p || !nl) {
                free(p);
                if (nl)
                    *list = nl;
                cli_error("out of memory");
                return -1;
            }
            *list = nl;
            (*list)[(*n)++] = p;
        }
    }
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const one *x = a, *y = b;
    if (x->tr.file.start_realtime_ns != y->tr.file.start_realtime_ns)
        return x->tr.file.start_realtime_ns < y->tr.file.start_realtime_ns ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* The report's view of t[0..n). */
static rp_report_trace *refs_of(const one *t, size_t n)
{
    rp_report_trace *r = calloc(n ? n : 1, sizeof(*r));
    for (size_t i = 0; r && i < n; i++)
        r[i] = (rp_report_trace){ .trace = &t[i].tr, .path = t[i].path, .label = t[i].label };
    return r;
}

/* The error for a --thread that matches no sampled thread, with a few of
 * the labels that would. */
void cli_report_no_thread(const char *thread, const rp_profile *p)
{
    enum { SHOWN = 8 };
    char list[1024];
    size_t used = 0;

    list[0] = '\0';
    for (size_t i = 0; i < p->nlabels && i < SHOWN && used < sizeof(list); i++)
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%s'%s'", i ? ", " : "", p->labels[i]);
    if (!p->nlabels)
        cli_error("no thread matches '%s': the trace has no samples", thread);
    else if (p->nlabels > SHOWN)
        cli_error("no thread matches '%s'; the sampled threads include %s and %zu more (a thread is matched by "
                  "its label, name, kernel name, OS thread id or managed id 0x...)", thread, list, p->nlabels - SHOWN);
    else
        cli_error("no thread matches '%s'; the sampled threads are %s (a thread is matched by its label, name, "
                  "kernel name, OS thread id or managed id 0x...)", thread, list);
}

void cli_report_no_records(const char *what, const rp_format *fmt, enum rp_view view, const rp_report_input *in)
{
    const rp_view_info *vi = rp_view_of(view);
    char others[256] = "";
    size_t used = 0;

    for (int v = 0; v < RP_VIEW_COUNT; v++)
        if (v != (int)view && used < sizeof(others) && rp_input_view_records(in, (enum rp_view)v))
            used += (size_t)snprintf(others + used, sizeof(others) - used, "%s%s", used ? ", " : "; it has the "
                                     "records of --view ", rp_views[v].name);
    if (view == RP_VIEW_CPU)
        cli_error("%s %s no CPU samples, which the %s format shows: record with --collect cpu (it is in the "
                  "default 'all')%s", what, in->ntraces > 1 ? "have" : "has", fmt->name, others);
    else
        cli_error("%s %s no %s, which the %s view shows: record them with %s%s", what,
                  in->ntraces > 1 ? "have" : "has", vi->records, vi->name, vi->collect, others);
}

void cli_report_empty_view(const char *what, const char *thread, const rp_profile *p)
{
    const rp_view_info *vi = rp_view_of(p->view);
    const char *why = thread ? NULL : rp_live_empty_reason(p);

    if (why)
        cli_error("the %s view of %s is empty: %s", vi->name, what, why);
    else
        cli_error("no samples match%s%s%s in the %s view%s", thread ? " thread '" : "", thread ? thread : "",
                  thread ? "'" : "", vi->title, p->view == RP_VIEW_CPU ? " (try --view wall)" : "");
}

int cli_report_many(char **args, size_t nargs, const rp_format *fmt, const rp_report_options *opt)
{
    char **paths = NULL, err[512], problem[512];
    size_t npaths = 0, n = 0;
    one *t = NULL;
    int rc = 1;
    cli_output out;
    FILE *stream = stdout;
    rp_profile merged;
    rp_report_trace *refs = NULL;
    rp_report_input rin;
    char title[64], what[64];

    if (collect(args, nargs, &paths, &npaths) < 0)
        goto done;
    if (!(fmt->needs & RP_NEED_PROFILE)) {
        cli_error("report: the %s format reads one trace at a time (got %zu)", fmt->name, npaths);
        rc = EXIT_USAGE;
        goto done;
    }
    t = calloc(npaths ? npaths : 1, sizeof(*t));
    if (!t) {
        cli_error("out of memory");
        goto done;
    }
    for (size_t i = 0; i < npaths; i++) {
        int r = rp_load(paths[i], &t[n].tr, err, sizeof(err));
        if (r != TRACE_OK) {
            cli_error(r == TRACE_E_IO ? "%s%s" : "%s: %s", r == TRACE_E_IO ? "" : paths[i], err);
            goto done;
        }
        snprintf(t[n].path, sizeof(t[n].path), "%s", paths[i]);
        if (!(t[n].tr.lines = rp_lines_new(&t[n].tr, opt->symbols_dir))) {
            cli_error("out of memory");
            rp_free(&t[n].tr);
            goto done;
        }
        if (rp_problem(&t[n].tr, problem, sizeof(problem)))
            cli_error("warning: %s: %s", paths[i], problem);
        label_of(&t[n].tr, t[n].label, sizeof(t[n].label));
        n++;
    }
    if (n == 0) {
        cli_error("report: no trace to read");
        goto done;
    }
    rp_sort(t, n, sizeof(*t), by_start);
    if (!(refs = refs_of(t, n))) {
        cli_error("out of memory");
        goto done;
    }
    snprintf(title, sizeof(title), "%zu processes", n);
    snprintf(what, sizeof(what), "these %zu traces", n);
    rin = (rp_report_input){ .trace = &t[0].tr, .path = t[0].path, .title = title, .by_thread = opt->by_thread,
                             .ntraces = n, .traces = refs, .thread = opt->thread,
                             .profile_options = opt->profile_options };
    /* (as for one trace, cmd_report.c) */
    if (rp_input_view_records(&rin, opt->view) == 0 &&
        ((fmt->needs & RP_NEED_SAMPLES) || (opt->view_given && rp_view_of(opt->view)->family != RP_FAMILY_TIME))) {
        cli_report_no_records(what, fmt, opt->view, &rin);
        goto done;
    }
    if (rp_input_profile(&rin, opt->view, &merged) < 0) {
        cli_error("out of memory building the profiles");
        goto done;
    }
    if (opt->thread && !merged.filter_matched) {
        cli_report_no_thread(opt->thread, &merged);
        rp_profile_free(&merged);
        goto done;
    }
    if ((fmt->needs & RP_NEED_SAMPLES) && merged.nsamples == 0) {
        if (!opt->thread && rp_live_empty_reason(&merged))
            cli_report_empty_view(what, NULL, &merged);
        else
            cli_error("no samples%s%s%s in the %s view of these %zu traces", opt->thread ? " of thread '" : "",
                      opt->thread ? opt->thread : "", opt->thread ? "'" : "", rp_view_of(opt->view)->title, n);
        rp_profile_free(&merged);
        goto done;
    }
    /* Every trace read, also those found in a directory, is an input the
     * report must not replace. */
    if (opt->output && cli_output_open(&out, opt->output, "report", (const char *const *)paths, npaths, 0) != 0) {
        rp_profile_free(&merged);
        goto done;
    }
    if (opt->output)
        cli_output_remove_on_signal(&out);
    if (opt->output && !(stream = cli_output_stream(&out))) {
        cli_output_discard(&out);
        rp_profile_free(&merged);
        goto done;
    }
    {
        int wr = 0;
        rin.profile = &merged;
        wr = fmt->write_many ? fmt->write_many(&rin, stream) : fmt->write(&rin, stream);
        rp_profile_free(&merged);
        if (opt->output) {
            if (wr != 0) {
                cli_error("cannot write report %s: %s", opt->output, strerror(errno));
                cli_output_discard(&out);
            } else if (cli_output_commit(&out) == 0) {
                rc = 0;
            }
        } else if (wr != 0 || fflush(stdout) != 0 || ferror(stdout)) {
            cli_error("cannot write the report to standard output: %s", strerror(errno));
        } else {
            rc = 0;
        }
    }
done:
    for (size_t i = 0; i < n; i++)
        rp_free(&t[i].tr);
    for (size_t i = 0; i < npaths; i++)
        free(paths[i]);
    free(paths);
    free(t);
    free(refs);
    return rc;
}

/* `dotnet run|test|watch` only launches: the app is the longest-lived
 * child that is not a process of the SDK (as `clrprobe run` says). */
static void launcher_note(const rp_trace *parent, const one *kids, size_t n, FILE *out)
{
    char cmd[256], *argv[3] = { NULL, NULL, NULL }, *save = NULL, name[FOLLOW_NAME_MAX + 1];
    const one *app = NULL;
    const char *verb;

    snprintf(cmd, sizeof(cmd), "%s", parent->file.command_line ? parent->file.command_line : "");
    argv[0] = strtok_r(cmd, " ", &save);
    argv[1] = argv[0] ? strtok_r(NULL, " ", &save) : NULL;
    if (!argv[0] || !(verb = follow_launcher(argv)))
        return;
    for (size_t i = 0; i < n; i++) {
        const char *l = kids[i].label, *sp = strstr(l, " (pid ");
        snprintf(name, sizeof(name), "%.*s", sp ? (int)(sp - l) : (int)strlen(l), l);
        if (!follow_sdk_tool(name) && (!app || kids[i].tr.end_t > app->tr.end_t))
            app = &kids[i];
    }
    if (app)
        fprintf(out, "  dotnet %s only launched the app: it ran in %s\n", verb, app->label);
}

void cli_report_children(const char *path, const rp_trace *parent, FILE *out)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX], stem[PATH_MAX];
    size_t slen;
    DIR *d;
    struct dirent *de;
    one *kids = NULL;
    size_t n = 0;
    uint64_t start = parent->file.start_realtime_ns, end = start + parent->end_t + 2000000000ull;

    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
    snprintf(stem, sizeof(stem), "%s", slash ? slash + 1 : path);
    slen = strlen(stem);
    if (slen > 5 && strcmp(stem + slen - 5, ".clrp") == 0)
        stem[slen -= 5] = '\0';
    stem[slen++] = '.';
    stem[slen] = '\0';
    if (!(d = opendir(dir)))
        return;
    /* STEM.PROGRAM-PID.clrp that started while the parent ran: what
     * `clrprobe run` names its children's traces (run_follow.h). */
    while ((de = readdir(d))) {
        char p[PATH_MAX], err[256];
        one *nk;
        if (strncmp(de->d_name, stem, slen) != 0 || !is_trace_name(de->d_name) || !strchr(de->d_name + slen, '-'))
            continue;
        if ((size_t)snprintf(p, sizeof(p), "%s%s%s", slash ? dir : "", slash && strcmp(dir, "/") ? "/" : "",
                             de->d_name) >= sizeof(p) ||
            !(nk = realloc(kids, (n + 1) * sizeof(*kids))))
            continue;
        kids = nk;
        if (rp_load(p, &kids[n].tr, err, sizeof(err)) != TRACE_OK)
            continue;
        if (kids[n].tr.file.start_realtime_ns < start || kids[n].tr.file.start_realtime_ns > end) {
            rp_free(&kids[n].tr);
            continue;
        }
        snprintf(kids[n].path, sizeof(kids[n].path), "%s", p);
        label_of(&kids[n].tr, kids[n].label, sizeof(kids[n].label));
        n++;
    }
    closedir(d);
    if (n) {
        rp_report_trace *refs;
        rp_sort(kids, n, sizeof(*kids), by_start);
        fputc('\n', out);
        if ((refs = refs_of(kids, n)))
            rp_write_processes("Processes it started (their own traces; 'clrprobe report DIR' shows them together)",
                               refs, n, out);
        free(refs);
        launcher_note(parent, kids, n, out);
    }
    for (size_t i = 0; i < n; i++)
        rp_free(&kids[i].tr);
    free(kids);
}
