/* html_page_files.S - the html report's page files (src/report/page/) built
 * into clrprobe as they are: each file's bytes under a symbol, then a NUL, for
 * html_page.c to write the page from (it declares them; its unit test checks
 * that each equals its file).  The paths are from the top of the source tree,
 * where make runs; the Makefile rebuilds this object when a page file changes. */

    .section .rodata

    .macro PAGE_FILE name, path
    .globl  \name
    .type   \name, @object
\name:
    .incbin "\path"
    .byte   0
    .size   \name, . - \name
    .endm

    PAGE_FILE rp_page_html,           "src/report/page/page.html"
    PAGE_FILE rp_page_css,            "src/report/page/page.css"
    PAGE_FILE rp_page_flamegraph_js,  "src/report/page/flamegraph.js"
    PAGE_FILE rp_page_gc_timeline_js, "src/report/page/gc_timeline.js"
    PAGE_FILE rp_page_calls_js,       "src/report/page/calls.js"
    PAGE_FILE rp_page_heap_js,        "src/report/page/heap.js"

    .section .note.GNU-stack,"",@progbits
