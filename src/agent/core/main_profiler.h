/* main_profiler.h - the process's main profiler, seen from inside: the
 * library the environment names as the startup profiler, when it is loaded
 * and is not this agent, and this agent's own file.  The agent asks when
 * the runtime wants its role (lifecycle.c) and to name the profiler it
 * loaded beside (session.c). */
#ifndef CLRPROBE_AGENT_MAIN_PROFILER_H
#define CLRPROBE_AGENT_MAIN_PROFILER_H

#include <stddef.h>

/* 1 when the environment enables a startup profiler whose library is
 * loaded in this process and is another file than this agent's: its path
 * (as the environment names it) in path.  0 when not. */
int main_profiler_foreign(char *path, size_t cap);

/* This agent's library, as the dynamic loader knows it ("" when it cannot
 * tell). */
void main_profiler_self(char *path, size_t cap);

#endif
