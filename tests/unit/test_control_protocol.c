/* test_control_protocol.c - the words and formats of the control protocol
 * (src/common/control_protocol.h) produce the exact bytes the protocol
 * documents, and the command's helpers read them back. */
#include "unit.h"

#include <sys/socket.h>
#include <unistd.h>
#include "common/control_protocol.h"

TEST(control_protocol_bytes)
{
    char line[CP_CTL_LINE_MAX];

    snprintf(line, sizeof(line), CP_CTL_HELLO_FMT, 4242);
    CHECK_STR(line, "hello 4242");
    snprintf(line, sizeof(line), CP_CTL_ERROR_FMT, "no \\\"x\\\"");
    CHECK_STR(line, "error no \\\"x\\\"");
    snprintf(line, sizeof(line), CP_CTL_READY_FMT, 1u, 2u, 3u, 4u, 5000000000ull);
    CHECK_STR(line, "ready 1 2 3 4 5000000000");
    snprintf(line, sizeof(line), CP_CTL_DETACH_FAILED_FMT, 0x80131367u);
    CHECK_STR(line, "detach-failed 0x80131367");
    CHECK_STR(CP_CTL_DETACHING, "detaching");
    CHECK_STR(CP_CTL_DETACHED, "detached");
    CHECK_STR(CP_CTL_EXITED, "exited");
    CHECK_STR(CP_CTL_TRACE, "trace\n");
    CHECK_EQ(strlen(CP_CTL_TRACE), CP_CTL_TRACE_LEN);
    CHECK_STR(CP_CTL_DETACH, "detach\n");
    CHECK_EQ(strlen(CP_CTL_DETACH), CP_CTL_DETACH_LEN);
}

TEST(control_protocol_parse)
{
    unsigned m = 0, a = 0, t = 0, f = 0;
    unsigned long long ns = 0;
    const char *args;

    CHECK_STR(cp_ctl_args("hello 17", CP_CTL_HELLO), "17");
    CHECK(cp_ctl_args("hello", CP_CTL_HELLO) == NULL);          /* a word with arguments needs them */
    CHECK(cp_ctl_args("helloo 1", CP_CTL_HELLO) == NULL);
    CHECK_STR(cp_ctl_args("error ", CP_CTL_ERROR), "");
    CHECK_STR(cp_ctl_args("detach-failed 0x80004005", CP_CTL_DETACH_FAILED), "0x80004005");
    CHECK(cp_ctl_args("detached", CP_CTL_DETACH_FAILED) == NULL);
    CHECK(cp_ctl_is("detached", CP_CTL_DETACHED));
    CHECK(!cp_ctl_is("detaching", CP_CTL_DETACHED));
    CHECK(!cp_ctl_is("exited ", CP_CTL_EXITED));

    args = cp_ctl_args("ready 12 3 4 567 890123", CP_CTL_READY);
    CHECK(args != NULL);
    CHECK_EQ(sscanf(args ? args : "", CP_CTL_READY_ARGS_FMT, &m, &a, &t, &f, &ns), 5);
    CHECK_EQ(m, 12);
    CHECK_EQ(a, 3);
    CHECK_EQ(t, 4);
    CHECK_EQ(f, 567);
    CHECK_EQ(ns, 890123);
}

/* cp_ctl_send_trace sends exactly "trace\n" with the descriptor: what the
 * agent's control_receive_trace reads (6 bytes, one SCM_RIGHTS fd). */
TEST(control_protocol_send_trace_carries_the_fd)
{
    int sv[2], pipefd[2], got = -1;
    char line[16] = "", cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { line, sizeof(line) };
    struct msghdr msg;
    struct cmsghdr *cm;
    ssize_t n;

    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    CHECK_EQ(pipe(pipefd), 0);
    CHECK_EQ(cp_ctl_send_trace(sv[0], pipefd[1], -1, -1), 0);
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf;
    msg.msg_controllen = sizeof(cbuf);
    n = recvmsg(sv[1], &msg, MSG_CMSG_CLOEXEC);
    CHECK_EQ(n, CP_CTL_TRACE_LEN);
    CHECK(memcmp(line, "trace\n", 6) == 0);
    cm = CMSG_FIRSTHDR(&msg);
    CHECK(cm != NULL && cm->cmsg_type == SCM_RIGHTS);
    if (cm)
        memcpy(&got, CMSG_DATA(cm), sizeof(int));
    CHECK(got >= 0);
    if (got >= 0) {
        CHECK_EQ(write(got, "x", 1), 1);     /* the same pipe: readable at the other end */
        CHECK_EQ(read(pipefd[0], line, 1), 1);
        close(got);
    }
    close(sv[1]);
    CHECK_EQ(cp_ctl_send_trace(sv[0], pipefd[1], -1, -1), -1);   /* the other end gone: an error, no SIGPIPE */
    close(sv[0]);
    close(pipefd[0]);
    close(pipefd[1]);
}

/* With the per-CPU clock's page, the same message carries two descriptors,
 * the trace's first: an agent that knows only the first closes the other. */
TEST(control_protocol_send_trace_carries_the_clock_after_the_trace)
{
    int sv[2], trace[2], clock[2], got[2] = { -1, -1 };
    char line[16] = "", cbuf[CMSG_SPACE(2 * sizeof(int))], b;
    struct iovec iov = { line, sizeof(line) };
    struct msghdr msg;
    struct cmsghdr *cm;

    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    CHECK_EQ(pipe(trace), 0);
    CHECK_EQ(pipe(clock), 0);
    CHECK_EQ(cp_ctl_send_trace(sv[0], trace[1], clock[1], -1), 0);
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf;
    msg.msg_controllen = sizeof(cbuf);
    CHECK_EQ(recvmsg(sv[1], &msg, MSG_CMSG_CLOEXEC), CP_CTL_TRACE_LEN);
    cm = CMSG_FIRSTHDR(&msg);
    CHECK(cm != NULL && cm->cmsg_type == SCM_RIGHTS && cm->cmsg_len == CMSG_LEN(2 * sizeof(int)));
    if (cm)
        memcpy(got, CMSG_DATA(cm), sizeof(got));
    CHECK(got[0] >= 0 && got[1] >= 0);
    if (got[0] >= 0 && got[1] >= 0) {
        CHECK_EQ(write(got[0], "t", 1), 1);
        CHECK_EQ(write(got[1], "c", 1), 1);
        CHECK_EQ(read(trace[0], &b, 1), 1);
        CHECK_EQ(b, 't');
        CHECK_EQ(read(clock[0], &b, 1), 1);
        CHECK_EQ(b, 'c');
        close(got[0]);
        close(got[1]);
    }
    close(sv[0]);
    close(sv[1]);
    close(trace[0]);
    close(trace[1]);
    close(clock[0]);
    close(clock[1]);
}

/* With the stack engine's ring too: three descriptors, in that order. */
TEST(control_protocol_send_trace_carries_the_stack_ring_after_the_clock)
{
    int sv[2], p[3][2], got[3] = { -1, -1, -1 };
    char line[16] = "", cbuf[CMSG_SPACE(3 * sizeof(int))], b;
    struct iovec iov = { line, sizeof(line) };
    struct msghdr msg;
    struct cmsghdr *cm;

    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(pipe(p[i]), 0);
    CHECK_EQ(cp_ctl_send_trace(sv[0], p[0][1], p[1][1], p[2][1]), 0);
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf;
    msg.msg_controllen = sizeof(cbuf);
    CHECK_EQ(recvmsg(sv[1], &msg, MSG_CMSG_CLOEXEC), CP_CTL_TRACE_LEN);
    cm = CMSG_FIRSTHDR(&msg);
    CHECK(cm != NULL && cm->cmsg_type == SCM_RIGHTS && cm->cmsg_len == CMSG_LEN(3 * sizeof(int)));
    if (cm)
        memcpy(got, CMSG_DATA(cm), sizeof(got));
    for (int i = 0; i < 3; i++) {
        CHECK(got[i] >= 0);
        if (got[i] < 0)
            continue;
        CHECK_EQ(write(got[i], "tcs" + i, 1), 1);
        CHECK_EQ(read(p[i][0], &b, 1), 1);
        CHECK_EQ(b, "tcs"[i]);
        close(got[i]);
    }
    close(sv[0]);
    close(sv[1]);
    for (int i = 0; i < 3; i++)
        close(p[i][0]), close(p[i][1]);
}
