/* --symbol-prefix, --emit=c-array and --embed (see embed.h). */
#include "embed.h"
#include <string.h>

void ir_prefix_symbols(IrModule *m, const char *prefix, Arena *arena) {
    for (int i = 0; i < m->nfields; i++) m->fields[i].name = arena_printf(arena, "%s%s", prefix, m->fields[i].name);
    for (int i = 0; i < m->nkernels; i++) {
        IrKernel *k = &m->kernels[i];
        k->name = arena_printf(arena, "%s%s", prefix, k->name);
        for (int t = 0; t < k->ntasks; t++) k->tasks[t].name = arena_printf(arena, "%s%s", prefix, k->tasks[t].name);
    }
}

static void put_ident(StrBuf *b, const char *s) {
    for (; *s; s++) {
        char c = *s;
        bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        sb_putc(b, ok ? c : '_');
    }
}

/* <prefix>qdc_<module>_<family>: the symbol of an embedded artifact. */
static void symbol_of(StrBuf *sym, const char *prefix, const char *module, const char *family) {
    sb_puts(sym, prefix ? prefix : "");
    sb_puts(sym, "qdc_"), put_ident(sym, module), sb_putc(sym, '_'), put_ident(sym, family);
}

void c_array_render(StrBuf *out, const char *prefix, const char *module, const char *family, const char *kind,
                    const StrBuf *data, const char *header) {
    StrBuf sym;
    sb_init(&sym);
    symbol_of(&sym, prefix, module, family);
    sb_printf(out, "/* The %s output of %s.qd for %s, embedded by qdc %s. Generated; do not edit. */\n", kind, module,
              family, header ? "--embed" : "--emit=c-array");
    if (header) sb_printf(out, "#include \"%s\"\n", header); /* its declarations are checked against these */
    sb_printf(out, "#include <stddef.h>\n\nconst size_t %s_size = %zu;\nconst unsigned char %s[%zu] = {", sym.data,
              data->len, sym.data, data->len + 1);
    for (size_t i = 0; i <= data->len; i++) {
        unsigned char c = i < data->len ? (unsigned char)data->data[i] : 0;
        sb_printf(out, "%s0x%02x,", i % 16 ? " " : "\n    ", c);
    }
    sb_puts(out, "\n};\n");
    sb_free(&sym);
}

void c_array_header(StrBuf *out, const char *prefix, const char *module, const char *family, const char *kind,
                    size_t size) {
    StrBuf sym, guard;
    sb_init(&sym), sb_init(&guard);
    symbol_of(&sym, prefix, module, family);
    for (const char *p = sym.data; *p; p++) sb_putc(&guard, *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p);
    sb_printf(out, "/* The %s output of %s.qd for %s, embedded by qdc --embed. Generated; do not edit. */\n", kind,
              module, family);
    sb_printf(out, "#ifndef %s_H\n#define %s_H\n#include <stddef.h>\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", guard.data,
              guard.data);
    sb_printf(out, "/* %zu bytes, and a NUL after them (PTX and MSL can be passed as strings) */\n", size);
    sb_printf(out, "extern const size_t %s_size;\nextern const unsigned char %s[%zu];\n", sym.data, sym.data, size + 1);
    sb_printf(out, "\n#ifdef __cplusplus\n}\n#endif\n#endif\n");
    sb_free(&sym), sb_free(&guard);
}
