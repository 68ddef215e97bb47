/* fleet.h - every .NET process `clrprobe serve` can reach, and a metrics
 * session for each (eventpipe/metrics_session.h): a scan of the processes
 * every few seconds (ipc_list_processes: this host's and its containers'),
 * a thread per process that keeps its session and its latest figures, and
 * the answers made of them (the Prometheus exposition of all, the list of
 * processes).  A process that exits is dropped; one whose session failed is
 * tried again after a while. */
#ifndef CLRPROBE_SERVE_FLEET_H
#define CLRPROBE_SERVE_FLEET_H

#include <stdio.h>

#define FLEET_SCAN_MS    2000       /* how often the processes are listed */
#define FLEET_RETRY_MS   30000      /* after a failed session */

typedef struct fleet fleet;

/* A fleet that will watch, with meters (as `counters --meters`) every
 * refresh_s seconds, every process or (npids > 0) only those of pids; empty
 * until fleet_run.  NULL when out of memory. */
fleet *fleet_new(const char *meters, double refresh_s, const int *pids, size_t npids);

/* Starts the scans (and so the sessions): 0, or -1 when no thread can be made. */
int fleet_run(fleet *f);

/* Stops every session (each ended with StopTracing) and frees the fleet. */
void fleet_stop(fleet *f);

/* The Prometheus text exposition of every process's last interval. */
void fleet_write_metrics(fleet *f, FILE *out);

/* The processes as a JSON array: pid, name, runtime, container, inner pid,
 * command, and the state of their metrics ("starting", "reading",
 * "exited", "error: ..."). */
void fleet_write_processes(fleet *f, FILE *out);

/* Whether pid is one of the fleet's processes (reachable and .NET). */
int fleet_has(fleet *f, int pid);

#endif
