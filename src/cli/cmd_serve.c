/* cmd_serve.c - `clrprobe serve`: an HTTP endpoint for every .NET process
 * this user can reach on the host (its containers' too), for Prometheus and
 * pprof scrapers (src/serve/).  Listens on 127.0.0.1 unless told otherwise, and says so
 * when told to listen wider. */
#include "cli/cli.h"
#include "common/duration.h"
#include "serve/endpoints.h"
#include "serve/token.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SERVE_DEFAULT_PORT 9440
#define EXIT_INTERRUPTED_SERVE 130

static const char serve_usage[] =
    "usage: clrprobe serve [--listen ADDR:PORT] [--token-file FILE | --no-auth] [--meters LIST]\n"
    "                      [--interval TIME] [--pids LIST]\n"
    "\n"
    "Serves over HTTP, for every .NET process this user can reach on the host (the\n"
    "processes of its containers too, as root), the runtime metrics clrprobe counters\n"
    "shows, for Prometheus to scrape, and profiles in Go's pprof format, for go tool\n"
    "pprof and continuous profilers:\n"
    "  /metrics     the Prometheus text format: each process's figures of its last\n"
    "               interval (counters as totals), labelled with pid, process,\n"
    "               container_id (in a container), runtime_version and\n"
    "               otel_scope_name (the meter)\n"
    "  /processes   the processes, as JSON\n"
    "  /pid/PID/debug/pprof/profile?seconds=N  CPU (default 30 s, at most 60)\n"
    "  /pid/PID/debug/pprof/allocs?seconds=N   allocations (default 10 s)\n"
    "  /pid/PID/debug/pprof/heap               live objects (a heap snapshot)\n"
    "  /pid/PID/debug/pprof/mutex?seconds=N    lock waits (default 10 s)\n"
    "  /pid/PID/debug/pprof/goroutine          every thread's stack now\n"
    "A profile attaches clrprobe's agent for its window and detaches it (as clrprobe\n"
    "attach); one at a time per process.\n"
    "Each process gets its own metrics session (as clrprobe counters; a process is\n"
    "let finish its first 2 s of start-up first), kept while it runs.  Ctrl-C or\n"
    "SIGTERM stops serving and ends every session; a second one leaves at once.\n"
    "Every request must carry 'Authorization: Bearer TOKEN' (else 401): the token is\n"
    "read from a file only this user can read, made with a new random token when it\n"
    "does not exist (its path said on stderr); Prometheus: authorization:\n"
    "credentials_file; curl -H \"Authorization: Bearer $(cat FILE)\".\n"
    "\n"
    "options:\n"
    "  --listen ADDR:PORT  where to listen (default 127.0.0.1:9440; [::1]:9440 for IPv6;\n"
    "                      port 0: any free one, said on stderr).  Anyone who can reach\n"
    "                      it can try: listen wider only behind a firewall\n"
    "  --token-file FILE   the token's file (default /run/clrprobe/serve.token as root,\n"
    "                      else $XDG_RUNTIME_DIR/clrprobe/serve.token): a regular file of\n"
    "                      this user's, mode 0600, made when missing\n"
    "  --no-auth           ask no credentials: whoever reaches the port reads every\n"
    "                      process's metrics and command line and has serve attach to it\n"
    "  --meters LIST       meters, as clrprobe counters takes them (default System.Runtime)\n"
    "  --interval TIME     how often the processes aggregate, whole seconds (default 1s)\n"
    "  --pids LIST         only these processes (pids separated by commas, as this host\n"
    "                      numbers them; default: every one)\n"
    "  -h, --help          this help\n";

/* ADDR:PORT, [V6]:PORT, or PORT alone (on 127.0.0.1): 0, or -1. */
static int parse_listen(const char *text, char *addr, size_t cap, unsigned *port)
{
    const char *colon;
    char *end;
    unsigned long p;

    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (!close || close[1] != ':' || (size_t)(close - text - 1) >= cap)
            return -1;
        memcpy(addr, text + 1, (size_t)(close - text - 1));
        addr[close - text - 1] = 0;
        colon = close + 1;
    } else if ((colon = strrchr(text, ':')) != NULL) {
        if ((size_t)(colon - text) >= cap)
            return -1;
        memcpy(addr, text, (size_t)(colon - text));
        addr[colon - text] = 0;
    } else {
        snprintf(addr, cap, "127.0.0.1");
        colon = text - 1;
    }
    p = strtoul(colon + 1, &end, 10);
    if (!colon[1] || *end || p > 65535)
        return -1;
    *port = (unsigned)p;
    return 0;
}

/* After the first Ctrl-C or SIGTERM, which ends serving in order (every
 * session stopped, the profiles in progress finished), a second one
 * leaves at once. */
static void *second_signal(void *arg)
{
    int sig;
    sigwait((sigset_t *)arg, &sig);
    cli_error("serve: interrupted again: leaving without waiting (sessions end as their connections close)");
    _exit(EXIT_INTERRUPTED_SERVE);
    return NULL;
}

/* Whether addr is a loopback address (only this host reaches it). */
static int loopback(const char *addr)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, addr, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, addr, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

int cmd_serve(int argc, char **argv)
{
    static const struct option opts[] = {
        { "listen", required_argument, NULL, 'l' },
        { "meters", required_argument, NULL, 'm' },
        { "interval", required_argument, NULL, 'i' },
        { "pids", required_argument, NULL, 'P' },
        { "token-file", required_argument, NULL, 'T' },
        { "no-auth", no_argument, NULL, 'N' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    char addr[64] = "127.0.0.1", err[1024], token[TOKEN_CAP] = "", token_path[1024] = "";
    const char *token_file = NULL;
    int no_auth = 0, created = 0;
    const char *meters = "System.Runtime";
    unsigned port = SERVE_DEFAULT_PORT;
    double refresh_s = 1;
    http_server *http;
    sigset_t sigs, old;
    fleet *f;
    int c, sig, pids[64];
    size_t npids = 0;

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'l':
            if (parse_listen(optarg, addr, sizeof(addr), &port) < 0) {
                cli_error("serve: --listen takes ADDR:PORT ([ADDR]:PORT for IPv6, or PORT), not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'm':
            if (cli_meters_invalid("serve", optarg))
                return EXIT_USAGE;
            meters = optarg;
            break;
        case 'i':
            if (cp_duration_parse("--interval", optarg, 1, 3600, &refresh_s, err, sizeof(err)) < 0) {
                cli_error("serve: %s", err);
                return EXIT_USAGE;
            }
            if (refresh_s != (double)(long)refresh_s) {
                cli_error("serve: --interval takes whole seconds (1s to 1h), not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'P': {
            char *p = optarg, *end;
            npids = 0;
            do {
                long v = strtol(p, &end, 10);
                if (end == p || v <= 0 || v > 0x7fffffff || (*end && *end != ',') || npids == 64) {
                    cli_error("serve: --pids takes up to 64 process ids separated by commas, not '%s'", optarg);
                    return EXIT_USAGE;
                }
                pids[npids++] = (int)v;
                p = end + (*end == ',');
            } while (*end);
            break;
        }
        case 'T':
            token_file = optarg;
            break;
        case 'N':
            no_auth = 1;
            break;
        case 'h':
            fputs(serve_usage, stdout);
            return 0;
        default:
            cli_option_error("serve", argv, optind, optopt);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        cli_error("serve: unexpected argument '%s' (see clrprobe serve --help)", argv[optind]);
        return EXIT_USAGE;
    }
    if (no_auth && token_file) {
        cli_error("serve: --no-auth and --token-file exclude each other");
        return EXIT_USAGE;
    }
    if (!no_auth) {
        if (token_file)
            snprintf(token_path, sizeof(token_path), "%s", token_file);
        else if (token_default_path(token_path, sizeof(token_path), err, sizeof(err)) < 0) {
            cli_error("serve: %s", err);
            return 1;
        }
        if (token_load(token_path, token, sizeof(token), &created, err, sizeof(err)) < 0) {
            cli_error("serve: %s", err);
            return 1;
        }
    }

    /* signals are taken by sigwait below; the threads started now inherit the mask */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, &old);
    signal(SIGPIPE, SIG_IGN);
    if (!(f = fleet_new(meters, refresh_s, pids, npids))) {
        cli_error("serve: out of memory");
        sigprocmask(SIG_SETMASK, &old, NULL);
        return 1;
    }
    /* (listening first: a serve that cannot listen never touches a process) */
    if (!(http = http_start(addr, port, no_auth ? NULL : token, endpoints_handle, f, err, sizeof(err))) ||
        fleet_run(f) < 0) {
        cli_error("serve: %s", http ? "cannot start a thread" : err);
        http_stop(http);
        fleet_stop(f);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return 1;
    }
    memset(token, 0, sizeof(token));       /* (the server keeps its own copy) */
    if (no_auth)
        cli_error("serve: --no-auth: no credentials asked: whoever reaches %s:%u reads every .NET process's "
                  "metrics and command line, and has serve attach to it for profiles, stacks and heap snapshots",
                  addr, http_port(http));
    else
        cli_error("serve: every request must send 'Authorization: Bearer TOKEN'; the token is in %s (%s, mode 0600)",
                  token_path, created ? "made now" : "read");
    if (!loopback(addr))
        cli_error("serve: listening on %s, not on this host's loopback: whoever reaches it can try; put a firewall "
                  "in front%s", addr, no_auth ? ", or drop --no-auth" : "");
    cli_error("serve: serving http://%s%s%s:%u/metrics and /processes (and /pid/PID/debug/pprof/...) for the "
              ".NET processes this user can reach; Ctrl-C stops", strchr(addr, ':') ? "[" : "", addr, strchr(addr, ':') ? "]" : "",
              http_port(http));
    sigwait(&sigs, &sig);
    {
        pthread_t t;
        if (pthread_create(&t, NULL, second_signal, &sigs) == 0)
            pthread_detach(t);
    }
    http_stop(http);
    fleet_stop(f);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return 0;
}
