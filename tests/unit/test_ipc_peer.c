/* test_ipc_peer.c - finding the inode of an abstract socket in the text of
 * /proc/PID/net/unix (ipc/peer.c), the first step of telling whether the
 * process itself holds the name. */
#include "unit.h"
#include "ipc/ipc.h"

#include <string.h>

static const char net_unix[] =
    "Num       RefCount Protocol Flags    Type St Inode Path\n"
    "0000000000000000: 00000002 00000000 00010000 0001 01 4242 @clrprobe-quiet-123x\n"
    "0000000000000000: 00000002 00000000 00010000 0001 01 777 @clrprobe-quiet-123\n"
    "0000000000000000: 00000003 00000000 00000000 0001 03 91 /run/systemd/journal/stdout\n"
    "0000000000000000: 00000002 00000000 00010000 0001 01 555 @clrprobe-heap-123\n"
    "0000000000000000: 00000002 00000000 00010000 0001 01 556\n";

TEST(ipc_unix_inode_finds_the_exact_abstract_name)
{
    unsigned long ino = 0;

    CHECK_EQ(1, ipc_unix_inode(net_unix, strlen(net_unix), "clrprobe-quiet-123", &ino));
    CHECK_EQ(777, ino);
    CHECK_EQ(1, ipc_unix_inode(net_unix, strlen(net_unix), "clrprobe-heap-123", &ino));
    CHECK_EQ(555, ino);
    CHECK_EQ(0, ipc_unix_inode(net_unix, strlen(net_unix), "clrprobe-heap-12", &ino));
    CHECK_EQ(0, ipc_unix_inode(net_unix, strlen(net_unix), "run/systemd/journal/stdout", &ino));
    CHECK_EQ(0, ipc_unix_inode("", 0, "clrprobe-heap-123", &ino));
}
