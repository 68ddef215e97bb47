/* code_map.c - snapshots of the process's code (code_map.h). */
#include "unwind/code_map.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DELETED_SUFFIX " (deleted)"

static int is_anonymous(const char *path)
{
    return !path[0] || strncmp(path, "/memfd:", 7) == 0 || strncmp(path, "[anon", 5) == 0 ||
           strcmp(path, "[heap]") == 0 || strcmp(path, "[stack]") == 0;
}

/* The kind of file at open_path: CM_NATIVE (ELF), CM_MANAGED_IMAGE (PE:
 * "MZ"), CM_ANON (neither), -1 (unreadable). */
static int file_kind(const char *open_path)
{
    unsigned char head[16];
    ssize_t n;
    struct stat st;
    int fd = open(open_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    n = read(fd, head, sizeof(head));
    close(fd);
    if (n >= 16 && elf_is_elf(head, (size_t)n))
        return CM_NATIVE;
    if (n >= 2 && head[0] == 'M' && head[1] == 'Z')
        return CM_MANAGED_IMAGE;
    return CM_ANON;
}

static char *clean_path(const char *path)
{
    size_t len = strlen(path), sl = strlen(DELETED_SUFFIX);
    char *p;
    if (len > sl && strcmp(path + len - sl, DELETED_SUFFIX) == 0)
        len -= sl;
    if (!(p = malloc(len + 1)))
        return NULL;
    memcpy(p, path, len);
    p[len] = '\0';
    return p;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static cm_object *find_object(cm_objects *c, const pm_entry *e)
{
    for (cm_object *o = c->head; o; o = o->next)
        if (o->inode == e->inode && o->dev == ((uint64_t)e->dev_major << 32 | e->dev_minor) &&
            strncmp(o->path, e->path, strlen(o->path)) == 0)
            return o;
    return NULL;
}

/* Reads the file mapped by e (through /proc/self/map_files: the very file
 * mapped, even if replaced since; else its path): its kind, and for an ELF
 * object its unwind table and symbols.  A file that cannot be read is kept
 * (not ok) so that it is not read again. */
static cm_object *new_object(cm_objects *c, const pm_entry *e)
{
    cm_object *o = calloc(1, sizeof(*o));
    char exact[64];
    const char *from;

    if (!o || !(o->path = clean_path(e->path))) {
        free(o);
        return NULL;
    }
    o->name = base_name(o->path);
    o->dev = (uint64_t)e->dev_major << 32 | e->dev_minor;
    o->inode = e->inode;
    o->is_runtime = strcmp(o->name, "libcoreclr.so") == 0;
    o->serial = (uint32_t)c->count + 1;
    if (strcmp(e->path, "[vdso]") == 0) {
        o->file_kind = CM_NATIVE;
        o->ok = elf_image_from_memory(&o->img, (const void *)e->start, e->end - e->start) == 0;
    } else {
        snprintf(exact, sizeof(exact), "/proc/self/map_files/%lx-%lx", (unsigned long)e->start,
                 (unsigned long)e->end);
        from = exact;
        if ((o->file_kind = file_kind(exact)) < 0) {
            from = o->path;
            o->file_kind = file_kind(o->path);
        }
        if (o->file_kind < 0)
            o->file_kind = CM_ANON;
        if (o->file_kind == CM_NATIVE)
            o->ok = elf_image_open(&o->img, from) == 0;
    }
    atomic_init(&o->cfi_ready, 0);
    o->next = c->head;
    c->head = o;
    c->count++;
    return o;
}

static int range_cmp(const void *a, const void *b)
{
    const cm_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

code_map *cm_build(cm_objects *cache, const pm_maps *maps, uint64_t serial)
{
    code_map *m = calloc(1, sizeof(*m));
    size_t names_len = 0, names_at = 0;

    if (!m)
        return NULL;
    m->serial = m->kept_since = serial;
    if (!(m->r = calloc(maps->n ? maps->n : 1, sizeof(*m->r)))) {
        free(m);
        return NULL;
    }
    for (size_t i = 0; i < maps->n; i++)
        if (maps->v[i].perms & PM_EXEC)
            names_len += strlen(base_name(maps->v[i].path)) + 1;
    if (!(m->names = malloc(names_len + 1))) {
        cm_free(m);
        return NULL;
    }
    for (size_t i = 0; i < maps->n; i++) {
        const pm_entry *e = &maps->v[i];
        cm_range *r = &m->r[m->n];

        if (!(e->perms & PM_EXEC) || strcmp(e->path, "[vsyscall]") == 0)
            continue;
        r->start = e->start;
        r->end = e->end;
        if (is_anonymous(e->path)) {
            r->kind = CM_ANON;
        } else {
            cm_object *o = find_object(cache, e);
            if (!o && !(o = new_object(cache, e))) {
                cm_free(m);
                return NULL;
            }
            r->kind = (uint8_t)o->file_kind;
            if (o->file_kind == CM_MANAGED_IMAGE) {
                size_t len = strlen(o->name);
                memcpy(m->names + names_at, o->name, len + 1);
                r->image = m->names + names_at;
                names_at += len + 1;
            } else if (o->file_kind == CM_NATIVE) {
                r->obj = o;
                if (!o->ok || elf_image_bias(&o->img, e->start, e->offset, &r->bias) < 0)
                    r->bias = e->start - e->offset;
            }
        }
        m->n++;
    }
    qsort(m->r, m->n, sizeof(*m->r), range_cmp);
    m->names_len = names_at;
    return m;
}

code_map *cm_add_anon(const code_map *old, const pm_entry *e, uint64_t serial)
{
    size_t first = old->n, covered = 0;
    code_map *m;

    if (!(e->perms & PM_EXEC) || !is_anonymous(e->path) || e->end <= e->start)
        return NULL;
    /* old's ranges that meet e: anonymous ones wholly inside it only (a
     * JIT heap that grew into one mapping with its neighbour) */
    for (size_t i = 0; i < old->n; i++) {
        const cm_range *r = &old->r[i];
        if (r->end <= e->start || r->start >= e->end) {
            if (r->start < e->start)
                continue;
            if (first == old->n)
                first = i;               /* (where e goes: before the first range above it) */
            continue;
        }
        if (r->kind != CM_ANON || r->start < e->start || r->end > e->end)
            return NULL;
        if (first == old->n)
            first = i;
        covered++;
    }
    if (!(m = calloc(1, sizeof(*m))))
        return NULL;
    m->r = calloc(old->n - covered + 1, sizeof(*m->r));
    m->names = malloc(old->names_len + 1);
    if (!m->r || !m->names) {
        cm_free(m);
        return NULL;
    }
    memcpy(m->names, old->names, old->names_len);
    m->names_len = old->names_len;
    for (size_t i = 0; i < old->n; i++) {
        const cm_range *r = &old->r[i];
        if (i == first)
            m->r[m->n++] = (cm_range){ .start = e->start, .end = e->end, .kind = CM_ANON };
        if (r->end > e->start && r->start < e->end)
            continue;                    /* (inside e) */
        m->r[m->n] = *r;
        if (r->image)
            m->r[m->n].image = m->names + (r->image - old->names);
        m->n++;
    }
    if (first == old->n)
        m->r[m->n++] = (cm_range){ .start = e->start, .end = e->end, .kind = CM_ANON };
    m->serial = serial;
    m->kept_since = old->kept_since;      /* (code only added) */
    return m;
}

void cm_object_prepare(cm_object *o)
{
    if (!o->ok || atomic_load_explicit(&o->cfi_ready, memory_order_acquire))
        return;
    if (cfi_table_build(&o->img, &o->cfi) < 0)
        memset(&o->cfi, 0, sizeof(o->cfi));       /* (out of memory: frame pointers, as before) */
    elf_image_index_symbols(&o->img);             /* (out of memory: no names, the table stands) */
    atomic_store_explicit(&o->cfi_ready, 1, memory_order_release);
}

void cm_objects_prepare_all(cm_objects *c)
{
    for (cm_object *o = c->head; o; o = o->next)
        cm_object_prepare(o);
}

void cm_free(code_map *m)
{
    if (!m)
        return;
    free(m->r);
    free(m->names);
    free(m);
}

void cm_objects_free(cm_objects *c)
{
    cm_object *o = c->head;
    while (o) {
        cm_object *next = o->next;
        cfi_table_free(&o->cfi);
        elf_image_close(&o->img);
        free(o->path);
        free(o);
        o = next;
    }
    memset(c, 0, sizeof(*c));
}

void cm_keep(code_map *m, const code_map *old)
{
    m->kept_since = m->serial;
    if (!old)
        return;
    for (size_t i = 0; i < old->n; i++) {
        const cm_range *o = &old->r[i], *n = cm_find(m, o->start);
        if (!n || n->end < o->end || n->kind != o->kind || n->obj != o->obj ||
            (o->kind == CM_MANAGED_IMAGE && (!n->image || !o->image || strcmp(n->image, o->image) != 0)))
            return;
    }
    m->kept_since = old->kept_since;
}

const cm_range *cm_find(const code_map *m, uintptr_t pc)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pc < m->r[mid].start)
            hi = mid;
        else if (pc >= m->r[mid].end)
            lo = mid + 1;
        else
            return &m->r[mid];
    }
    return NULL;
}
