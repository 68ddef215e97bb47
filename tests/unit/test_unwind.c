/* test_unwind.c - the signal sampler's unwinding layer (src/unwind/):
 * /proc/self/maps parsing, .eh_frame tables from hand-made bytes, ELF
 * symbols, and real walks of this process's own stacks compared frame by
 * frame with glibc's backtrace() (libgcc's unwinder, an independent
 * implementation): from ordinary code, through libc's qsort (compiled
 * without frame pointers: only its unwind tables find its callers), and
 * from a signal handler across the signal frame.  Synthetic stacks check
 * the frame-pointer chain, the runtime's hijacked return address and a
 * broken chain. */
#include "unit.h"
#include "unwind/cfi.h"
#include "unwind/code_map.h"
#include "unwind/elf_image.h"
#include "unwind/proc_maps.h"
#include "unwind/stack_walk.h"

#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* ---- /proc/self/maps ---- */

TEST(unwind_proc_maps_parse)
{
    static const char text[] =
        "55d0c0a00000-55d0c0a02000 r--p 00000000 fe:01 1234   /usr/bin/dotnet\n"
        "7f00aa000000-7f00aa200000 r-xp 00028000 08:02 98765  /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "7f00ab000000-7f00ab010000 r-xs 00000000 00:01 77     /memfd:doublemapper (deleted)\n"
        "garbage line\n"
        "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0      [stack]\n"
        "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0";
    pm_maps m;
    const pm_entry *e;

    CHECK_EQ(0, pm_parse(text, sizeof(text) - 1, &m));
    CHECK_EQ(5, m.n);
    CHECK_EQ(0x7f00aa000000u, m.v[1].start);
    CHECK_EQ(0x7f00aa200000u, m.v[1].end);
    CHECK_EQ(0x28000, m.v[1].offset);
    CHECK_EQ(98765, m.v[1].inode);
    CHECK_EQ(8, m.v[1].dev_major);
    CHECK_EQ(PM_READ | PM_EXEC | PM_PRIVATE, m.v[1].perms);
    CHECK_STR("/usr/lib/x86_64-linux-gnu/libc.so.6", m.v[1].path);
    CHECK_STR("/memfd:doublemapper (deleted)", m.v[2].path);
    CHECK_EQ(PM_READ | PM_EXEC, m.v[2].perms);
    CHECK_STR("[stack]", m.v[3].path);
    CHECK_STR("", m.v[4].path);
    e = pm_find(&m, 0x7f00aa1fffffu);
    CHECK(e == &m.v[1]);
    CHECK(pm_find(&m, 0x7f00aa200000u) == NULL);
    pm_free(&m);
}

/* The kernel's one-mapping query gives what the maps file says, for this
 * process's stack, code, heap, and an address with no mapping. */
TEST(unwind_proc_maps_query_agrees_with_the_file)
{
    int local = 0, rc;
    void *heap = malloc(1 << 20);
    uintptr_t at[] = { (uintptr_t)&local, (uintptr_t)pm_parse, (uintptr_t)heap, (uintptr_t)malloc };
    char path[4096];
    pm_entry e;
    pm_maps m;

    rc = pm_query_self((uintptr_t)&local, &e, path, sizeof(path));
    if (rc == -2) {
        free(heap);
        return;                  /* (a kernel before 6.11: the sampler reads the file; nothing to compare) */
    }
    CHECK_EQ(0, pm_read_self(&m));
    for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
        const pm_entry *f = pm_find(&m, at[i]);
        CHECK(f != NULL);
        CHECK_EQ(1, pm_query_self(at[i], &e, path, sizeof(path)));
        CHECK_EQ(f->start, e.start);
        CHECK_EQ(f->end, e.end);
        CHECK_EQ(f->perms, e.perms);
        CHECK_EQ(f->offset, e.offset);
        CHECK_EQ(f->inode, e.inode);
        CHECK_STR(f->path, e.path);
    }
    CHECK_EQ(0, pm_query_self(4096, &e, path, sizeof(path)));      /* (nothing is mapped at 4 KiB) */
    CHECK_EQ(-1, pm_query_self((uintptr_t)&local, &e, path, 1));   /* (no room for a path) */
    pm_free(&m);
    free(heap);
}

/* A JIT code heap found by the query joins a map without a new read: placed
 * in order, anonymous ranges inside it replaced, kept_since kept; what
 * only a new read can settle is refused. */
TEST(unwind_code_map_adds_an_anonymous_mapping)
{
    char image[] = "/tmp/clrprobe-unit-XXXXXX", text[512];
    int fd = mkstemp(image);
    pm_maps maps;
    cm_objects cache = { 0 };
    code_map *m, *a, *b;
    pm_entry e = { .start = 0x300000, .end = 0x310000, .perms = PM_READ | PM_EXEC, .path = "/memfd:doublemapper (deleted)" };

    CHECK(fd >= 0);
    CHECK_EQ(64, write(fd, "MZ" "..............................................................", 64));  /* (a PE image) */
    close(fd);
    snprintf(text, sizeof(text),
             "100000-200000 r-xp 00000000 08:02 11  /usr/lib/x86_64-linux-gnu/libc.so.6\n"
             "300000-301000 r-xp 00000000 00:00 0\n"
             "302000-303000 r-xs 00000000 00:01 7   /memfd:doublemapper (deleted)\n"
             "400000-500000 r-xp 00000000 08:02 12  %s\n", image);
    CHECK_EQ(0, pm_parse(text, strlen(text), &maps));
    m = cm_build(&cache, &maps, 1);
    CHECK(m != NULL);
    CHECK_EQ(4, m->n);
    /* the heap grew over both anonymous ranges */
    a = cm_add_anon(m, &e, 2);
    CHECK(a != NULL);
    CHECK_EQ(3, a->n);
    CHECK_EQ(2, a->serial);
    CHECK_EQ(m->kept_since, a->kept_since);
    CHECK(cm_find(a, 0x30f000) == &a->r[1]);
    CHECK_EQ(CM_ANON, a->r[1].kind);
    CHECK(cm_find(a, 0x150000) && cm_find(a, 0x150000)->kind == m->r[0].kind);
    CHECK(cm_find(a, 0x450000) && cm_find(a, 0x450000)->image);
    CHECK_STR(cm_find(m, 0x450000)->image, cm_find(a, 0x450000)->image);
    CHECK(cm_find(a, 0x450000)->image != cm_find(m, 0x450000)->image);    /* (a's own copy) */
    /* a new heap above everything, then one below everything */
    e = (pm_entry){ .start = 0x600000, .end = 0x601000, .perms = PM_READ | PM_EXEC, .path = "" };
    b = cm_add_anon(a, &e, 3);
    CHECK(b != NULL);
    CHECK_EQ(4, b->n);
    CHECK(cm_find(b, 0x600800) == &b->r[3]);
    cm_free(b);
    e = (pm_entry){ .start = 0x1000, .end = 0x2000, .perms = PM_READ | PM_EXEC, .path = "" };
    b = cm_add_anon(a, &e, 3);
    CHECK(b != NULL);
    CHECK(cm_find(b, 0x1800) == &b->r[0]);
    CHECK(cm_find(b, 0x300000) == &b->r[2]);
    cm_free(b);
    /* refused: not executable, a file's code, over a file's range, cutting an anonymous range */
    e = (pm_entry){ .start = 0x600000, .end = 0x601000, .perms = PM_READ | PM_WRITE, .path = "" };
    CHECK(cm_add_anon(a, &e, 3) == NULL);
    e = (pm_entry){ .start = 0x600000, .end = 0x601000, .perms = PM_READ | PM_EXEC, .path = "/usr/lib/libz.so.1" };
    CHECK(cm_add_anon(a, &e, 3) == NULL);
    e = (pm_entry){ .start = 0x1ff000, .end = 0x201000, .perms = PM_READ | PM_EXEC, .path = "" };
    CHECK(cm_add_anon(a, &e, 3) == NULL);
    e = (pm_entry){ .start = 0x308000, .end = 0x320000, .perms = PM_READ | PM_EXEC, .path = "" };
    CHECK(cm_add_anon(a, &e, 3) == NULL);
    cm_free(a);
    cm_free(m);
    cm_objects_free(&cache);
    pm_free(&maps);
    unlink(image);
}

/* ---- .eh_frame bytes made by hand ---- */

typedef struct blob {
    uint8_t b[512];
    size_t n;
} blob;

static void put(blob *x, const void *p, size_t n) { memcpy(x->b + x->n, p, n); x->n += n; }
static void u8b(blob *x, uint8_t v) { put(x, &v, 1); }
static void u32b(blob *x, uint32_t v) { put(x, &v, 4); }
static void pad_len(blob *x, size_t len_at)
{
    while ((x->n - len_at) % 8 != 0)
        u8b(x, 0);                                  /* DW_CFA_nop */
    uint32_t len = (uint32_t)(x->n - len_at - 4);
    memcpy(x->b + len_at, &len, 4);
}

/* A CIE ("zR", pc-relative sdata4 pointers, CFA rsp+8, return address at
 * CFA-8) and one FDE for [0x1000, 0x1040) at vaddr 0 of the section:
 *   0x1000: push rbp            -> CFA rsp+16, rbp at CFA-16
 *   0x1001: mov rbp, rsp        -> CFA rbp+16
 *   0x1004: (OpenSSL's realigned stack) CFA = [rsp+40] + 8
 *   0x1010: remember, def_cfa rsp+8, restore rbp, ... restore state at 0x1020 */
static size_t make_eh_frame(blob *x)
{
    size_t cie_at, fde_at;
    int32_t rel;

    memset(x, 0, sizeof(*x));
    cie_at = x->n;
    u32b(x, 0);                                     /* length, set below */
    u32b(x, 0);                                     /* CIE id */
    u8b(x, 1);                                      /* version */
    put(x, "zR", 3);
    u8b(x, 1);                                      /* code align */
    u8b(x, 0x78);                                   /* data align -8 */
    u8b(x, 16);                                     /* return address register */
    u8b(x, 1);                                      /* augmentation length */
    u8b(x, 0x1b);                                   /* FDE pointers: pcrel sdata4 */
    u8b(x, 0x0c); u8b(x, 7); u8b(x, 8);             /* def_cfa rsp+8 */
    u8b(x, 0x90); u8b(x, 1);                        /* offset ra, CFA-8 */
    pad_len(x, cie_at);
    fde_at = x->n;
    u32b(x, 0);
    u32b(x, (uint32_t)(x->n - cie_at));             /* CIE pointer: back to the CIE */
    rel = (int32_t)(0x1000 - (int64_t)x->n);        /* pc_begin, pc-relative to this field */
    u32b(x, (uint32_t)rel);
    u32b(x, 0x40);                                  /* range */
    u8b(x, 0);                                      /* augmentation length */
    u8b(x, 0x41);                                   /* advance 1 */
    u8b(x, 0x0e); u8b(x, 16);                       /* def_cfa_offset 16 */
    u8b(x, 0x86); u8b(x, 2);                        /* offset rbp, CFA-16 */
    u8b(x, 0x43);                                   /* advance 3 */
    u8b(x, 0x0d); u8b(x, 6);                        /* def_cfa_register rbp */
    u8b(x, 0x4c);                                   /* advance 12 -> 0x1010 */
    u8b(x, 0x0a);                                   /* remember_state */
    u8b(x, 0x0f); u8b(x, 5);                        /* def_cfa_expression, 5 bytes: */
    u8b(x, 0x77); u8b(x, 40);                       /*   breg7 40 */
    u8b(x, 0x06);                                   /*   deref */
    u8b(x, 0x23); u8b(x, 8);                        /*   plus_uconst 8 */
    u8b(x, 0x50);                                   /* advance 16 -> 0x1020 */
    u8b(x, 0x0b);                                   /* restore_state */
    pad_len(x, fde_at);
    u32b(x, 0);                                     /* terminator */
    return x->n;
}

TEST(unwind_cfi_table_from_bytes)
{
    blob x;
    cfi_table t;
    const cfi_rule *r;
    uint64_t start = 0;

    make_eh_frame(&x);
    CHECK_EQ(0, cfi_table_build_from(x.b, x.n, 0, &t));
    CHECK_EQ(1, t.fdes);
    CHECK(cfi_find(&t, 0xfff, NULL) == NULL);
    r = cfi_find(&t, 0x1000, &start);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ(0x1000, start);
        CHECK_EQ(CFI_CFA_REG, r->cfa);
        CHECK_EQ(CFI_REG_RSP, r->cfa_reg);
        CHECK_EQ(8, r->cfa_off);
        CHECK_EQ(CFI_AT_CFA, r->ra_where);
        CHECK_EQ(-8, r->ra_off);
        CHECK_EQ(CFI_SAME, r->rbp_where);
    }
    r = cfi_find(&t, 0x1001, NULL);
    CHECK(r && r->cfa_reg == CFI_REG_RSP && r->cfa_off == 16 && r->rbp_where == CFI_AT_CFA && r->rbp_off == -16);
    r = cfi_find(&t, 0x1005, &start);
    CHECK(r && r->cfa == CFI_CFA_REG && r->cfa_reg == CFI_REG_RBP && r->cfa_off == 16);
    CHECK_EQ(0x1000, start);
    r = cfi_find(&t, 0x1012, NULL);
    CHECK(r && r->cfa == CFI_CFA_DEREF && r->cfa_reg == CFI_REG_RSP && r->cfa_off == 40 && r->cfa_add == 8);
    r = cfi_find(&t, 0x103f, NULL);   /* restore_state: back to rbp+16 */
    CHECK(r && r->cfa == CFI_CFA_REG && r->cfa_reg == CFI_REG_RBP && r->cfa_off == 16);
    CHECK(cfi_find(&t, 0x1040, NULL) == NULL);
    cfi_table_free(&t);

    /* damaged bytes: a length past the end gives an empty table, not a crash */
    x.b[0] = 0xff; x.b[1] = 0xff; x.b[2] = 0xff; x.b[3] = 0x7f;
    CHECK_EQ(0, cfi_table_build_from(x.b, x.n, 0, &t));
    CHECK_EQ(0, t.fdes);
    cfi_table_free(&t);
}

/* ---- real stacks of this process ---- */

static code_map *map;
static cm_objects objects;

static code_map *the_map(void)
{
    pm_maps m;
    if (map)
        return map;
    if (pm_read_self(&m) != 0)
        return NULL;
    map = cm_build(&objects, &m, 1);
    pm_free(&m);
    if (map)
        cm_objects_prepare_all(&objects);
    return map;
}

/* A frame's function as "object@start" (its FDE's start), or its address. */
static void frame_key(uintptr_t at, char *buf, size_t cap)
{
    const cm_range *r = cm_find(map, at);
    uint64_t start = 0;
    if (r && r->kind == CM_NATIVE && r->obj->ok && cfi_find(&r->obj->cfi, at - r->bias, &start))
        snprintf(buf, cap, "%s@%llx", r->obj->name, (unsigned long long)start);
    else
        snprintf(buf, cap, "?%lx", (unsigned long)at);
}

static uintptr_t stack_end(void)
{
    pthread_attr_t a;
    void *addr = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return 0;
    pthread_attr_getstack(&a, &addr, &size);
    pthread_attr_destroy(&a);
    return (uintptr_t)addr + size;
}

static void regs_of(const ucontext_t *uc, sw_regs *r)
{
    static const int gp[16] = { REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
                                REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15 };
    for (int i = 0; i < 16; i++)
        r->r[i] = (uintptr_t)uc->uc_mcontext.gregs[gp[i]];
    r->r[CFI_REG_RA] = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

/* Compares our walk (ours[0..n)) with backtrace()'s return addresses
 * (theirs[0..m), each minus one), frame by frame from the frame of the
 * function `from` in each (a sanitizer's interceptors may add frames of
 * their own before it), for at least need frames; says where they differ. */
static void compare_walks(const char *what, const uintptr_t *ours, size_t n, void *const *theirs, int m,
                          uintptr_t from, size_t need)
{
    size_t same = 0, i0 = 0, j0 = 0;
    char key[128], a[128], b[128];

    frame_key(from, key, sizeof(key));
    for (; i0 < n; i0++) {
        frame_key(ours[i0], a, sizeof(a));
        if (strcmp(a, key) == 0)
            break;
    }
    for (; (int)j0 < m; j0++) {
        frame_key((uintptr_t)theirs[j0] - (j0 == 0 ? 0 : 1), b, sizeof(b));
        if (strcmp(b, key) == 0)
            break;
    }
    if (i0 == n || (int)j0 == m) {
        unit_fail(__FILE__, __LINE__, "%s: %s not in %s", what, key, i0 == n ? "our walk" : "backtrace()'s");
        return;
    }
    for (size_t i = i0, j = j0; i < n && (int)j < m; i++, j++) {
        frame_key(ours[i], a, sizeof(a));
        frame_key((uintptr_t)theirs[j] - (j == 0 ? 0 : 1), b, sizeof(b));
        if (strcmp(a, b) != 0) {
            if (same < need)
                unit_fail(__FILE__, __LINE__, "%s: frame %zu is %s, backtrace() says %s", what, i, a, b);
            return;
        }
        same++;
    }
    if (same < need)
        unit_fail(__FILE__, __LINE__, "%s: %zu frames alike, %zu needed (ours %zu, backtrace %d)", what, same, need,
                  n, m);
}

static uintptr_t walked[128];
static size_t nwalked;
static unsigned walk_flags;
static void *bt[128];
static int nbt;

/* Walks from here (getcontext's saved state: the pc after its call), and
 * takes backtrace() from here too. */
__attribute__((noinline)) static void walk_here(void)
{
    ucontext_t uc;
    sw_regs regs;
    getcontext(&uc);
    regs_of(&uc, &regs);
    nwalked = sw_walk(map, &regs, stack_end(), walked, 128, &walk_flags);
    nbt = backtrace(bt, 128);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static int cmp_and_walk(const void *a, const void *b)
{
    static int done;
    if (!done) {
        done = 1;
        walk_here();
    }
    return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static void through_qsort(void)
{
    int v[64];
    for (int i = 0; i < 64; i++)
        v[i] = (i * 37) % 64;
    qsort(v, 64, sizeof(v[0]), cmp_and_walk);
    __asm__ volatile("" ::: "memory");
}

TEST(unwind_walk_matches_backtrace_through_libc)
{
    if (!the_map()) {
        unit_fail(__FILE__, __LINE__, "no code map of this process");
        return;
    }
    through_qsort();
    /* backtrace()'s first frame is its return into walk_here, as our
     * first is getcontext's; the frames above: cmp_and_walk, libc's qsort
     * internals (no frame pointers), through_qsort, this test, the runner,
     * main, libc's start */
    compare_walks("through qsort", walked, nwalked, bt, nbt, (uintptr_t)walk_here, 8);
    CHECK(walk_flags & SW_END_OF_STACK);
    CHECK(!(walk_flags & (SW_BROKEN | SW_UNKNOWN_PC)));
}

/* ---- from a signal handler ---- */

static volatile sig_atomic_t in_spin, got;
static uintptr_t sig_walked[128], sig_self[128];
static size_t sig_n, sig_self_n;
static unsigned sig_flags, sig_self_flags;
static void *sig_bt[128];
static int sig_nbt;
static uintptr_t sig_hi;

static void on_signal(int sig, siginfo_t *si, void *ucv)
{
    sw_regs regs;
    ucontext_t here;
    (void)sig;
    (void)si;
    /* the interrupted thread, from the signal's context */
    regs_of(ucv, &regs);
    sig_n = sw_walk(map, &regs, sig_hi, sig_walked, 128, &sig_flags);
    /* the handler itself: through the signal frame (glibc's trampoline) */
    getcontext(&here);
    regs_of(&here, &regs);
    sig_self_n = sw_walk(map, &regs, sig_hi, sig_self, 128, &sig_self_flags);
    sig_nbt = backtrace(sig_bt, 128);
    got = 1;
}

__attribute__((noinline)) static void spin_until_signalled(void)
{
    in_spin = 1;
    while (!got)
        __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void spin_caller(void)
{
    spin_until_signalled();
    __asm__ volatile("" ::: "memory");
}

static void *signaller(void *arg)
{
    pid_t tid = *(pid_t *)arg;
    while (!in_spin)
        usleep(1000);
    syscall(SYS_tgkill, getpid(), tid, SIGUSR2);
    return NULL;
}

TEST(unwind_walk_from_a_signal_handler)
{
    struct sigaction sa, old;
    pthread_t t;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    void *warm[4];

    if (!the_map())
        return;
    backtrace(warm, 4);                   /* (loads libgcc before the handler needs it) */
    sig_hi = stack_end();
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGUSR2, &sa, &old);
    in_spin = got = 0;
    pthread_create(&t, NULL, signaller, &tid);
    spin_caller();
    pthread_join(t, NULL);
    sigaction(SIGUSR2, &old, NULL);
    /* the interrupted frames: spin_until_signalled (where the signal hit),
     * spin_caller, this test... to the thread's start */
    {
        char a[128], b[128];
        frame_key(sig_walked[0], a, sizeof(a));
        frame_key((uintptr_t)spin_until_signalled, b, sizeof(b));
        CHECK_STR(b, a);
        frame_key(sig_walked[1], a, sizeof(a));
        frame_key((uintptr_t)spin_caller, b, sizeof(b));
        CHECK_STR(b, a);
        CHECK(sig_flags & SW_END_OF_STACK);
    }
    /* the handler's own walk goes through the signal frame into the same
     * frames; backtrace() agrees frame by frame (its frame after the
     * trampoline is exact, not a return address: compare by function) */
    compare_walks("across the signal frame", sig_self, sig_self_n, sig_bt, sig_nbt, (uintptr_t)on_signal, 3);
    {
        /* find the interrupted function in the handler's walk, after the trampoline */
        size_t k;
        char a[128], b[128];
        frame_key((uintptr_t)spin_until_signalled, b, sizeof(b));
        for (k = 0; k < sig_self_n; k++) {
            frame_key(sig_self[k], a, sizeof(a));
            if (strcmp(a, b) == 0)
                break;
        }
        CHECK(k < sig_self_n);
        if (k < sig_self_n) {
            CHECK_EQ(sig_n, sig_self_n - k);
            for (size_t i = 0; i < sig_n && k + i < sig_self_n; i++)
                if (sig_walked[i] != sig_self[k + i])
                    unit_fail(__FILE__, __LINE__, "frame %zu after the signal frame differs", i);
        }
    }
}

/* ---- synthetic stacks ---- */

/* A map with one "JIT" range [0x10000, 0x20000) and libcoreclr.so at
 * [0x30000, 0x40000) whose table has functions at 0x100 (an ordinary one,
 * CFA rsp+8) and 0x200 (the "hijack stub"). */
static void fake_map(code_map *m, cm_range *r, cm_object *o, cfi_rule *rules, uint32_t *pcs, uint16_t *idx)
{
    memset(o, 0, sizeof(*o));
    o->name = "libcoreclr.so";
    o->ok = 1;
    atomic_store(&o->cfi_ready, 1);
    o->is_runtime = 1;
    memset(rules, 0, 2 * sizeof(*rules));
    rules[1].cfa = CFI_CFA_REG;
    rules[1].cfa_reg = CFI_REG_RSP;
    rules[1].cfa_off = 8;
    rules[1].ra_where = CFI_AT_CFA;
    rules[1].ra_off = -8;
    rules[1].rbp_where = CFI_SAME;
    pcs[0] = 0x100; idx[0] = 1 | CFI_FDE_START;
    pcs[1] = 0x200; idx[1] = 1 | CFI_FDE_START;
    pcs[2] = 0x300; idx[2] = 0;
    o->cfi.pc = pcs;
    o->cfi.rule = idx;
    o->cfi.n = 3;
    o->cfi.rules = rules;
    o->cfi.nrules = 2;
    memset(r, 0, 2 * sizeof(*r));
    r[0].start = 0x10000; r[0].end = 0x20000; r[0].kind = CM_ANON;
    r[1].start = 0x30000; r[1].end = 0x40000; r[1].kind = CM_NATIVE; r[1].obj = o; r[1].bias = 0x30000;
    memset(m, 0, sizeof(*m));
    m->r = r;
    m->n = 2;
}

TEST(unwind_walk_frame_pointers_and_hijack)
{
    code_map m;
    cm_range r[2];
    cm_object o;
    cfi_rule rules[2];
    uint32_t pcs[3];
    uint16_t idx[3];
    uintptr_t stack[64], out[16];
    uintptr_t base = (uintptr_t)stack;
    sw_regs regs;
    unsigned flags;
    size_t n;

    fake_map(&m, r, &o, rules, pcs, idx);
    memset(stack, 0, sizeof(stack));
    memset(&regs, 0, sizeof(regs));
    /* three managed frames by RBP: leaf at 0x10010, frames at stack[4], [10], [20] */
    stack[4] = base + 10 * 8;  stack[5] = 0x11000 + 5;     /* -> caller at 0x11005 */
    stack[10] = base + 20 * 8; stack[11] = 0x12000 + 7;
    stack[20] = 0;             stack[21] = 0;               /* the chain's end */
    regs.r[CFI_REG_RA] = 0x10010;
    regs.r[CFI_REG_RSP] = base;
    regs.r[CFI_REG_RBP] = base + 4 * 8;
    n = sw_walk(&m, &regs, base + sizeof(stack), out, 16, &flags);
    CHECK_EQ(3, n);
    CHECK_EQ(0x10010, out[0]);
    CHECK_EQ(0x11004, out[1]);
    CHECK_EQ(0x12006, out[2]);
    CHECK(flags & SW_END_OF_STACK);

    /* the first frame's return address replaced by the stub at 0x30200:
     * marked, and the walk goes on by the frame pointer the runtime left */
    stack[5] = 0x30200;
    n = sw_walk(&m, &regs, base + sizeof(stack), out, 16, &flags);
    CHECK_EQ(3, n);
    CHECK_EQ(0x10010, out[0]);
    CHECK_EQ(SW_MARK_HIJACK, out[1]);
    CHECK_EQ(0x12006, out[2]);
    CHECK(flags & SW_HIJACKED);

    /* a return into the middle of a runtime function is no hijack */
    stack[5] = 0x30105;
    stack[7] = 0;           /* (its CFA rule: return address at [sp], sp = base + 6*8 after the FP step) */
    n = sw_walk(&m, &regs, base + sizeof(stack), out, 16, &flags);
    CHECK(n >= 2);
    CHECK_EQ(0x30104, out[1]);
    CHECK(!(flags & SW_HIJACKED));

    /* a frame pointer that leaves the stack ends the walk, without a read */
    stack[5] = 0x11005;
    stack[10] = (uintptr_t)0x10;                            /* below the stack */
    n = sw_walk(&m, &regs, base + sizeof(stack), out, 16, &flags);
    CHECK_EQ(3, n);
    CHECK(flags & SW_BROKEN);
    /* one that points above the stack's end */
    stack[10] = base + sizeof(stack) + 64;
    n = sw_walk(&m, &regs, base + sizeof(stack), out, 16, &flags);
    CHECK(flags & SW_BROKEN);
    /* an unknown pc (JIT code newer than the map): kept, and walked by its
     * frame pointer like managed code */
    stack[10] = base + 20 * 8;
    regs.r[CFI_REG_RA] = 0x50000;
    n = sw_walk(&m, &regs, base + sizeof(stack), out, 16, &flags);
    CHECK_EQ(3, n);
    CHECK_EQ(0x50000, out[0]);
    CHECK_EQ(0x11004, out[1]);
    CHECK(flags & SW_UNKNOWN_PC);
    /* depth */
    regs.r[CFI_REG_RA] = 0x10010;
    n = sw_walk(&m, &regs, base + sizeof(stack), out, 2, &flags);
    CHECK_EQ(2, n);
    CHECK(flags & SW_DEPTH);
}

/* An OSR frame: its link goes past the tier-0 frame's own pair (at
 * stack[12]) straight to the caller's caller; the pair is written after
 * the tier-0 frame, marked. */
TEST(unwind_walk_osr_frame)
{
    code_map m;
    cm_range r[2];
    cm_object o;
    cfi_rule rules[2];
    uint32_t pcs[3];
    uint16_t idx[3];
    uintptr_t stack[64], out[16];
    uintptr_t base = (uintptr_t)stack;
    sw_regs regs;
    unsigned flags;
    size_t n;

    fake_map(&m, r, &o, rules, pcs, idx);
    memset(stack, 0, sizeof(stack));
    memset(&regs, 0, sizeof(regs));
    stack[4] = base + 20 * 8;  stack[5] = 0x11005;         /* OSR frame -> pseudo return into tier-0 */
    stack[12] = base + 20 * 8; stack[13] = 0x13007;        /* the tier-0 frame's own pair: return into its caller */
    stack[20] = 0;             stack[21] = 0;
    regs.r[CFI_REG_RA] = 0x10010;
    regs.r[CFI_REG_RSP] = base;
    regs.r[CFI_REG_RBP] = base + 4 * 8;
    n = sw_walk(&m, &regs, base + sizeof(stack), out, 16, &flags);
    CHECK_EQ(4, n);
    CHECK_EQ(0x10010, out[0]);
    CHECK_EQ(0x11004, out[1]);
    CHECK_EQ(SW_MARK_OSR, out[2]);
    CHECK_EQ(0x13006, out[3]);
    CHECK(flags & SW_OSR);
    /* no such pair: nothing written */
    stack[12] = 0;
    n = sw_walk(&m, &regs, base + sizeof(stack), out, 16, &flags);
    CHECK_EQ(2, n);
    CHECK(!(flags & SW_OSR));
}

TEST(unwind_elf_symbols_of_this_program)
{
    elf_image img;
    uint64_t start = 0;
    const char *name;
    const cm_range *r;

    if (!the_map())
        return;
    r = cm_find(map, (uintptr_t)spin_caller);
    CHECK(r && r->kind == CM_NATIVE && r->obj->ok);
    if (!r || !r->obj->ok)
        return;
    name = elf_image_symbol(&r->obj->img, (uintptr_t)spin_caller + 1 - r->bias, &start);
    CHECK_STR("spin_caller", name);
    CHECK_EQ((uintptr_t)spin_caller - r->bias, start);
    /* libc's exported qsort by its dynamic symbols (a sanitizer's
     * interceptor of it, in this program, by its own) */
    r = cm_find(map, (uintptr_t)qsort);
    CHECK(r && r->obj && r->obj->ok);
    if (r && r->obj && r->obj->ok) {
        const char *q = elf_image_symbol(&r->obj->img, (uintptr_t)qsort - r->bias, NULL);
        CHECK(q && strstr(q, "qsort") != NULL);
    }
    /* not an ELF file */
    CHECK_EQ(-1, elf_image_open(&img, "/proc/self/status"));
}

TEST(unwind_elf_bias_of_shared_pages)
{
    /* libSystem.Native.so's layout: the text segment starts in the page the
     * first segment ends in; its mapping (file offset 0xb000) is at vaddr
     * 0xc000, not where the first segment would put that page */
    elf_image img;
    uintptr_t bias = 0;

    memset(&img, 0, sizeof(img));
    img.nload = 2;
    img.load[0].offset = 0; img.load[0].vaddr = 0; img.load[0].filesz = 0xb40c;
    img.load[1].offset = 0xb410; img.load[1].vaddr = 0xc410; img.load[1].filesz = 0xaeb0;
    CHECK_EQ(0, elf_image_bias(&img, 0x7f0000336000u, 0xb000, &bias));
    CHECK_EQ(0x7f0000336000u - 0xc000, bias);
    CHECK_EQ(0, elf_image_bias(&img, 0x7f000032a000u, 0, &bias));
    CHECK_EQ(0x7f000032a000u, bias);
    CHECK_EQ(-1, elf_image_bias(&img, 0x7f0000400000u, 0x40000, &bias));
}

/* The table's index finds the same rule as a search of every row, at every
 * address of a real object's code (libc's, every 7th byte). */
TEST(unwind_cfi_index_agrees_with_full_search)
{
    const cm_range *r;
    cfi_table plain;
    size_t checked = 0, found = 0;

    if (!the_map())
        return;
    r = cm_find(map, (uintptr_t)qsort);
    CHECK(r && r->obj && r->obj->ok && r->obj->cfi.nindex > 0);
    if (!r || !r->obj || !r->obj->ok || !r->obj->cfi.n)
        return;
    plain = r->obj->cfi;
    plain.index = NULL;
    plain.nindex = 0;
    for (uint64_t pc = r->obj->cfi.pc[0] > 64 ? r->obj->cfi.pc[0] - 64 : 0;
         pc < (uint64_t)r->obj->cfi.pc[r->obj->cfi.n - 1] + 64; pc += 7) {
        uint64_t s1 = 0, s2 = 0;
        const cfi_rule *a = cfi_find(&r->obj->cfi, pc, &s1), *b = cfi_find(&plain, pc, &s2);
        checked++;
        if (a != b || s1 != s2) {
            unit_fail(__FILE__, __LINE__, "at 0x%llx the index finds %p (start 0x%llx), all rows %p (0x%llx)",
                      (unsigned long long)pc, (const void *)a, (unsigned long long)s1, (const void *)b,
                      (unsigned long long)s2);
            break;
        }
        found += a != NULL;
    }
    CHECK(checked > 10000);
    CHECK(found > checked / 2);
}
