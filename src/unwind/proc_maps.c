/* proc_maps.c - /proc/self/maps read and parsed (proc_maps.h). */
#include "unwind/proc_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* PROCMAP_QUERY (linux/fs.h of Linux 6.11; older headers lack it): the
 * kernel's ABI, 104 bytes. */
struct pm_kernel_query {
    uint64_t size, query_flags, query_addr;
    uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
    uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
    uint64_t vma_name_addr, build_id_addr;
};
#define PM_PROCMAP_QUERY _IOWR('f', 17, struct pm_kernel_query)
#define PM_QUERY_READABLE 0x1u
#define PM_QUERY_WRITABLE 0x2u
#define PM_QUERY_EXECUTABLE 0x4u
#define PM_QUERY_SHARED 0x8u

static const char *hex(const char *s, const char *end, uint64_t *v)
{
    uint64_t x = 0;
    const char *start = s;
    for (; s < end; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
        else if (*s >= 'A' && *s <= 'F') d = (unsigned)(*s - 'A' + 10);
        else break;
        x = x << 4 | d;
    }
    *v = x;
    return s > start ? s : NULL;
}

static const char *dec(const char *s, const char *end, uint64_t *v)
{
    uint64_t x = 0;
    const char *start = s;
    for (; s < end && *s >= '0' && *s <= '9'; s++)
        x = x * 10 + (uint64_t)(*s - '0');
    *v = x;
    return s > start ? s : NULL;
}

static const char *skip_spaces(const char *s, const char *end)
{
    while (s < end && *s == ' ')
        s++;
    return s;
}

/* One line "start-end perms offset major:minor inode   path" of text,
 * NUL-terminated in place at its end. */
static int parse_line(char *s, char *end, pm_entry *e)
{
    uint64_t a, b, off, maj, min, ino;
    const char *p = s;

    if (!(p = hex(p, end, &a)) || p >= end || *p++ != '-' || !(p = hex(p, end, &b)) || p >= end || *p++ != ' ')
        return -1;
    if (end - p < 5)
        return -1;
    e->perms = (p[0] == 'r' ? PM_READ : 0) | (p[1] == 'w' ? PM_WRITE : 0) | (p[2] == 'x' ? PM_EXEC : 0) |
               (p[3] == 'p' ? PM_PRIVATE : 0);
    p = skip_spaces(p + 4, end);
    if (!(p = hex(p, end, &off)))
        return -1;
    p = skip_spaces(p, end);
    if (!(p = hex(p, end, &maj)) || p >= end || *p++ != ':' || !(p = hex(p, end, &min)))
        return -1;
    p = skip_spaces(p, end);
    if (!(p = dec(p, end, &ino)))
        return -1;
    p = skip_spaces(p, end);
    if (b <= a)
        return -1;
    e->start = (uintptr_t)a;
    e->end = (uintptr_t)b;
    e->offset = off;
    e->dev_major = (unsigned)maj;
    e->dev_minor = (unsigned)min;
    e->inode = ino;
    *end = '\0';
    e->path = p;
    return 0;
}

int pm_parse(const char *text, size_t len, pm_maps *out)
{
    size_t lines = 1, cap;
    char *copy, *s, *end;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    if (!(copy = malloc(len + 1)))
        return -1;
    memcpy(copy, text, len);
    copy[len] = '\0';
    cap = lines;
    if (!(out->v = calloc(cap, sizeof(*out->v)))) {
        free(copy);
        return -1;
    }
    out->text = copy;
    for (s = copy, end = copy + len; s < end;) {
        char *nl = memchr(s, '\n', (size_t)(end - s));
        char *line_end = nl ? nl : end;
        if (out->n < cap && parse_line(s, line_end, &out->v[out->n]) == 0)
            out->n++;
        s = line_end + 1;
    }
    return 0;
}

int pm_read_self(pm_maps *out)
{
    size_t cap = 64 * 1024, len = 0;
    char *buf = malloc(cap);
    int fd, rc;

    memset(out, 0, sizeof(*out));
    if (!buf)
        return -1;
    if ((fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)) < 0) {
        free(buf);
        return -1;
    }
    for (;;) {
        ssize_t n;
        if (len == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                close(fd);
                free(buf);
                return -1;
            }
            buf = nb;
            cap *= 2;
        }
        n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    rc = pm_parse(buf, len, out);
    free(buf);
    return rc;
}

void pm_free(pm_maps *m)
{
    free(m->v);
    free(m->text);
    memset(m, 0, sizeof(*m));
}

const pm_entry *pm_find(const pm_maps *m, uintptr_t addr)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (addr < m->v[mid].start)
            hi = mid;
        else if (addr >= m->v[mid].end)
            lo = mid + 1;
        else
            return &m->v[mid];
    }
    return NULL;
}

int pm_query_self(uintptr_t addr, pm_entry *e, char *path, size_t cap)
{
    struct pm_kernel_query q;
    int fd, rc, err;

    if (cap < 2)
        return -1;
    if ((fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    memset(&q, 0, sizeof(q));
    q.size = sizeof(q);
    q.query_addr = addr;                /* (no flags: the mapping that covers it) */
    q.vma_name_addr = (uint64_t)(uintptr_t)path;
    q.vma_name_size = (uint32_t)(cap > UINT32_MAX ? UINT32_MAX : cap);
    rc = ioctl(fd, PM_PROCMAP_QUERY, &q);
    err = errno;
    close(fd);
    if (rc != 0)
        return err == ENOENT ? 0 : err == ENOTTY || err == EINVAL ? -2 : -1;
    if (q.vma_start > addr || q.vma_end <= addr)
        return -1;
    if (!q.vma_name_size)
        path[0] = '\0';
    path[cap - 1] = '\0';
    memset(e, 0, sizeof(*e));
    e->start = (uintptr_t)q.vma_start;
    e->end = (uintptr_t)q.vma_end;
    e->offset = q.vma_offset;
    e->inode = q.inode;
    e->dev_major = q.dev_major;
    e->dev_minor = q.dev_minor;
    e->perms = (q.vma_flags & PM_QUERY_READABLE ? PM_READ : 0) | (q.vma_flags & PM_QUERY_WRITABLE ? PM_WRITE : 0) |
               (q.vma_flags & PM_QUERY_EXECUTABLE ? PM_EXEC : 0) | (q.vma_flags & PM_QUERY_SHARED ? 0 : PM_PRIVATE);
    e->path = path;
    return 1;
}
