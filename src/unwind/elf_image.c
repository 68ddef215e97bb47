/* elf_image.c - ELF headers, sections and function symbols (elf_image.h).
 * Every offset and size read from the file is checked against the file's
 * size before it is used: a damaged or hostile file gives no sections, never
 * a read outside the mapping. */
#include "unwind/elf_image.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int elf_is_elf(const void *head, size_t len)
{
    const unsigned char *h = head;
    return len >= EI_NIDENT && memcmp(h, ELFMAG, SELFMAG) == 0;
}

/* The range [off, off + len) lies inside the image. */
static int inside(const elf_image *img, uint64_t off, uint64_t len)
{
    return off <= img->size && len <= img->size - off;
}

static int read_headers(elf_image *img)
{
    Elf64_Ehdr eh;
    const uint8_t *d = img->data;

    if (img->size < sizeof(eh) || !elf_is_elf(d, img->size))
        return -1;
    memcpy(&eh, d, sizeof(eh));
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64)
        return -1;
    img->executable = eh.e_type == ET_EXEC;
    /* loadable segments */
    if (eh.e_phentsize == sizeof(Elf64_Phdr) && inside(img, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr))) {
        for (unsigned i = 0; i < eh.e_phnum && img->nload < ELF_MAX_LOADS; i++) {
            Elf64_Phdr ph;
            memcpy(&ph, d + eh.e_phoff + i * sizeof(ph), sizeof(ph));
            if (ph.p_type != PT_LOAD)
                continue;
            img->load[img->nload].vaddr = ph.p_vaddr;
            img->load[img->nload].memsz = ph.p_memsz;
            img->load[img->nload].offset = ph.p_offset;
            img->load[img->nload].filesz = ph.p_filesz;
            img->load[img->nload].flags = ph.p_flags;
            img->nload++;
        }
    }
    /* sections: .eh_frame, the symbol tables and their strings */
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || !inside(img, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)) ||
        eh.e_shstrndx >= eh.e_shnum)
        return 0;                             /* no sections: segments only */
    {
        Elf64_Shdr strs;
        memcpy(&strs, d + eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof(strs), sizeof(strs));
        if (!inside(img, strs.sh_offset, strs.sh_size))
            return 0;
        for (unsigned i = 0; i < eh.e_shnum; i++) {
            Elf64_Shdr sh;
            const char *name;
            memcpy(&sh, d + eh.e_shoff + (uint64_t)i * sizeof(sh), sizeof(sh));
            if (sh.sh_name >= strs.sh_size || sh.sh_type == SHT_NOBITS || !inside(img, sh.sh_offset, sh.sh_size))
                continue;
            name = (const char *)d + strs.sh_offset + sh.sh_name;
            if (!memchr(name, '\0', strs.sh_size - sh.sh_name))
                continue;
            if (strcmp(name, ".eh_frame") == 0) {
                img->eh_frame = d + sh.sh_offset;
                img->eh_frame_size = sh.sh_size;
                img->eh_frame_vaddr = sh.sh_addr;
            } else if (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB) {
                Elf64_Shdr link;
                if (sh.sh_link >= eh.e_shnum)
                    continue;
                memcpy(&link, d + eh.e_shoff + (uint64_t)sh.sh_link * sizeof(link), sizeof(link));
                if (!inside(img, link.sh_offset, link.sh_size))
                    continue;
                if (sh.sh_type == SHT_DYNSYM) {
                    img->dynsym = d + sh.sh_offset;
                    img->dynsym_size = sh.sh_size;
                    img->dynstr = d + link.sh_offset;
                    img->dynstr_size = link.sh_size;
                } else {
                    img->symtab = d + sh.sh_offset;
                    img->symtab_size = sh.sh_size;
                    img->strtab = d + link.sh_offset;
                    img->strtab_size = link.sh_size;
                    img->full_symbols = 1;
                }
            }
        }
    }
    return 0;
}

int elf_image_from_memory(elf_image *img, const void *data, size_t size)
{
    memset(img, 0, sizeof(*img));
    img->data = data;
    img->size = size;
    if (read_headers(img) < 0) {
        memset(img, 0, sizeof(*img));
        return -1;
    }
    return 0;
}

int elf_image_open(elf_image *img, const char *path)
{
    struct stat st;
    void *m;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

    memset(img, 0, sizeof(*img));
    if (fd < 0)
        return -1;
    /* a regular file only (never block on a FIFO or read a device) */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        return -1;
    }
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return -1;
    img->data = m;
    img->size = (size_t)st.st_size;
    img->owned = 1;
    if (read_headers(img) < 0) {
        munmap(m, (size_t)st.st_size);
        memset(img, 0, sizeof(*img));
        return -1;
    }
    return 0;
}

void elf_image_close(elf_image *img)
{
    free(img->syms);
    if (img->owned && img->data)
        munmap((void *)img->data, img->size);
    memset(img, 0, sizeof(*img));
}

static int sym_cmp(const void *a, const void *b)
{
    const elf_sym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    /* at one address, the larger first (an alias of a whole function wins over a part) */
    return x->size > y->size ? -1 : x->size < y->size;
}

static size_t add_syms(elf_sym *out, size_t n, const uint8_t *tab, size_t tab_size, const uint8_t *str,
                       size_t str_size)
{
    for (size_t off = 0; off + sizeof(Elf64_Sym) <= tab_size; off += sizeof(Elf64_Sym)) {
        Elf64_Sym s;
        int type;
        memcpy(&s, tab + off, sizeof(s));
        type = ELF64_ST_TYPE(s.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF || s.st_size == 0 ||
            s.st_name >= str_size || !memchr(str + s.st_name, '\0', str_size - s.st_name) || !str[s.st_name])
            continue;
        out[n].addr = s.st_value;
        out[n].size = s.st_size;
        out[n].name = (const char *)str + s.st_name;
        n++;
    }
    return n;
}

int elf_image_index_symbols(elf_image *img)
{
    size_t cap = (img->dynsym_size + img->symtab_size) / sizeof(Elf64_Sym), n = 0, out = 0;
    elf_sym *v;

    if (img->syms || cap == 0)
        return 0;
    if (!(v = malloc(cap * sizeof(*v))))
        return -1;
    if (img->symtab)
        n = add_syms(v, n, img->symtab, img->symtab_size, img->strtab, img->strtab_size);
    if (img->dynsym)
        n = add_syms(v, n, img->dynsym, img->dynsym_size, img->dynstr, img->dynstr_size);
    qsort(v, n, sizeof(*v), sym_cmp);
    /* one symbol per address */
    for (size_t i = 0; i < n; i++)
        if (out == 0 || v[i].addr != v[out - 1].addr)
            v[out++] = v[i];
    img->syms = v;
    img->nsyms = out;
    return 0;
}

const char *elf_image_symbol(const elf_image *img, uint64_t vaddr, uint64_t *start)
{
    size_t lo = 0, hi = img->nsyms;

    /* the last symbol starting at or below vaddr; then a few before it, in
     * case a small one sits inside a larger one that holds vaddr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (img->syms[mid].addr <= vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, looked = 0; i-- > 0 && looked < 4; looked++) {
        const elf_sym *s = &img->syms[i];
        if (vaddr >= s->addr && vaddr - s->addr < s->size) {
            if (start)
                *start = s->addr;
            return s->name;
        }
    }
    return NULL;
}

int elf_image_bias(const elf_image *img, uintptr_t map_start, uint64_t map_offset, uintptr_t *bias)
{
    int found = -1;

    /* the segment whose first page the mapping starts at (segments may
     * share a page: the one before ends in it too); else one that holds the
     * offset */
    for (int i = 0; i < img->nload && found < 0; i++)
        if ((img->load[i].offset & ~(uint64_t)0xfff) == map_offset)
            found = i;
    for (int i = 0; i < img->nload && found < 0; i++)
        if (map_offset >= (img->load[i].offset & ~(uint64_t)0xfff) &&
            map_offset < img->load[i].offset + img->load[i].filesz)
            found = i;
    if (found < 0)
        return -1;
    /* the mapping puts file offset map_offset at map_start; the segment puts
     * file offset p_offset at p_vaddr + bias */
    *bias = map_start - (uintptr_t)(img->load[found].vaddr - img->load[found].offset + map_offset);
    return 0;
}
