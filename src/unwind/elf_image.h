/* elf_image.h - one ELF shared object or executable, mapped read-only from
 * its file (or, for the vDSO, read in place): its loadable segments, its
 * unwind information (.eh_frame, which cfi.h turns into a table) and its
 * function symbols (the full symbol table where the file still has one,
 * else the dynamic one), to name the native frames of a sample
 * "library!symbol".  Opened and read on a normal thread, never in a signal
 * handler. */
#ifndef CLRPROBE_UNWIND_ELF_IMAGE_H
#define CLRPROBE_UNWIND_ELF_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define ELF_MAX_LOADS 16

typedef struct elf_sym {
    uint64_t addr, size;         /* in the object's own addresses (vaddr) */
    const char *name;            /* in the image's string table */
} elf_sym;

typedef struct elf_image {
    const uint8_t *data;         /* the whole file */
    size_t size;
    int owned;                   /* data is our mapping (munmap at close) */
    int executable;              /* ET_EXEC (not position independent) */
    struct { uint64_t vaddr, memsz, offset, filesz; uint32_t flags; } load[ELF_MAX_LOADS];
    int nload;
    const uint8_t *eh_frame;     /* .eh_frame, and the address it is loaded at (pc-relative pointers) */
    size_t eh_frame_size;
    uint64_t eh_frame_vaddr;
    const uint8_t *dynsym, *dynstr, *symtab, *strtab;
    size_t dynsym_size, dynstr_size, symtab_size, strtab_size;
    elf_sym *syms;               /* function symbols by address (elf_image_index_symbols) */
    size_t nsyms;
    int full_symbols;            /* the file had a .symtab */
} elf_image;

/* Maps the file at path and reads its headers.  0, or -1 (not ELF64
 * x86-64 little-endian, unreadable, out of memory). */
int elf_image_open(elf_image *img, const char *path);

/* The same for an image already in memory (the vDSO), not copied. */
int elf_image_from_memory(elf_image *img, const void *data, size_t size);

/* Is this the start of an ELF file (the first bytes of a file)? */
int elf_is_elf(const void *head, size_t len);

void elf_image_close(elf_image *img);

/* Sorts the function symbols for elf_image_symbol.  0, or -1 (out of
 * memory: no names). */
int elf_image_index_symbols(elf_image *img);

/* The function symbol whose [addr, addr + size) holds vaddr: its name, and
 * its start in *start; NULL when none does (stripped code). */
const char *elf_image_symbol(const elf_image *img, uint64_t vaddr, uint64_t *start);

/* The load bias of a mapping of this image: a mapping at map_start of the
 * file's bytes from map_offset puts the object's address vaddr at
 * vaddr + bias.  Returns 0 and sets *bias, or -1 (no segment holds that
 * offset). */
int elf_image_bias(const elf_image *img, uintptr_t map_start, uint64_t map_offset, uintptr_t *bias);

#endif
