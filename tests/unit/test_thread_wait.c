/* test_thread_wait.c - what a blocked thread waits on (ipc/thread_wait.c):
 * the kernel's syscall line and its net tables, parsed from texts as the
 * kernel writes them; and the reading itself on threads of this process
 * (a sleep, a read of a pipe). */
#include "unit.h"
#include "ipc/ipc.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

TEST(thread_wait_parses_the_syscall_line)
{
    long nr;
    unsigned long a[6];
    CHECK_EQ(ipc_parse_syscall("202 0x55d01dfffd90 0x189 0x0 0x0 0x0 0xffffffff 0x7ffe 0x7f7c\n", &nr, a), 1);
    CHECK_EQ(nr, 202);
    CHECK(a[0] == 0x55d01dfffd90ul && a[1] == 0x189 && a[5] == 0xffffffff);
    CHECK_EQ(ipc_parse_syscall("running\n", &nr, a), 0);
    CHECK_EQ(ipc_parse_syscall("-1 0x7ffe 0x7f7c\n", &nr, a), 0);     /* blocked, not in a call */
    CHECK_EQ(ipc_parse_syscall("47 0x1a 0x7f\n", &nr, a), 0);         /* cut */
    CHECK_EQ(ipc_parse_syscall("", &nr, a), 0);
}

TEST(thread_wait_names_a_socket_from_the_net_table)
{
    static const char tcp[] =
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
        "   0: 0100007F:13DC 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0 100 0 0 10 0\n"
        "   1: 0100007F:B0BE 0100007F:98B5 01 00000000:00000000 00:00000000 00000000     0        0 777 1 0 20 4 30 10 -1\n";
    static const char tcp6[] =
        "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
        "   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 99 1\n"
        "   1: 0000000000000000FFFF00000100007F:1F90 0000000000000000FFFF00000100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 98 1\n";
    char out[200];
    CHECK_EQ(ipc_socket_from_net_table(tcp, 777, "tcp", out, sizeof(out)), 1);
    CHECK_STR(out, "tcp socket 127.0.0.1:45246 to 127.0.0.1:39093");
    CHECK_EQ(ipc_socket_from_net_table(tcp, 4242, "tcp", out, sizeof(out)), 1);
    CHECK_STR(out, "tcp socket listening on 127.0.0.1:5084");
    CHECK_EQ(ipc_socket_from_net_table(tcp, 5, "tcp", out, sizeof(out)), 0);
    CHECK_EQ(ipc_socket_from_net_table(tcp6, 99, "tcp", out, sizeof(out)), 1);
    CHECK_STR(out, "tcp socket listening on [0:0:0:0:0:0:0:1]:8080");
    CHECK_EQ(ipc_socket_from_net_table(tcp6, 98, "tcp", out, sizeof(out)), 1);
    CHECK_STR(out, "tcp socket 127.0.0.1:8080 to 127.0.0.1:50000");
    CHECK_EQ(ipc_socket_from_net_table("header only", 1, "tcp", out, sizeof(out)), 0);
    CHECK_EQ(ipc_socket_from_net_table("h\n garbage line\n", 1, "tcp", out, sizeof(out)), 0);
}

static int pipe_fds[2];
static volatile pid_t reader_tid, sleeper_tid;

static void *reader(void *arg)
{
    char c;
    reader_tid = (pid_t)syscall(SYS_gettid);
    return read(pipe_fds[0], &c, 1) == 1 ? arg : NULL;
}

static void *sleeper(void *arg)
{
    struct timespec ts = { 60, 0 };     /* (cancelled) */
    sleeper_tid = (pid_t)syscall(SYS_gettid);
    nanosleep(&ts, NULL);
    return arg;
}

TEST(thread_wait_reads_this_process_threads)
{
    pthread_t r, s;
    char out[300] = "";
    int ok = 0;

    CHECK_EQ(pipe(pipe_fds), 0);
    pthread_create(&r, NULL, reader, NULL);
    pthread_create(&s, NULL, sleeper, NULL);
    for (int i = 0; i < 200 && !ok; i++) {      /* until both are in their calls */
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
        ok = reader_tid && sleeper_tid && ipc_thread_wait(getpid(), reader_tid, out, sizeof(out)) &&
             !strcmp(out, "reading a pipe") && ipc_thread_wait(getpid(), sleeper_tid, out, sizeof(out)) &&
             !strcmp(out, "a sleep");
    }
    CHECK(ok);
    CHECK_EQ(ipc_host_tid(getpid(), reader_tid), reader_tid);
    CHECK_EQ(ipc_thread_wait(getpid(), 999999999, out, sizeof(out)), 0);
    CHECK_EQ(write(pipe_fds[1], "x", 1), 1);
    pthread_join(r, NULL);
    pthread_cancel(s);
    pthread_join(s, NULL);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
}
