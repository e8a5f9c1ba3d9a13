/* --symbol-prefix and --emit=c-array (see embed.h). */
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

void c_array_render(StrBuf *out, const char *prefix, const char *module, const char *family, const char *kind,
                    const StrBuf *data) {
    StrBuf sym;
    sb_init(&sym);
    sb_puts(&sym, prefix ? prefix : "");
    sb_puts(&sym, "qdc_"), put_ident(&sym, module), sb_putc(&sym, '_'), put_ident(&sym, family);
    sb_printf(out, "/* The %s output of %s.qd for %s, embedded by qdc --emit=c-array. Generated; do not edit. */\n",
              kind, module, family);
    sb_printf(out, "#include <stddef.h>\n\nconst size_t %s_size = %zu;\nconst unsigned char %s[%zu] = {", sym.data,
              data->len, sym.data, data->len + 1);
    for (size_t i = 0; i <= data->len; i++) {
        unsigned char c = i < data->len ? (unsigned char)data->data[i] : 0;
        sb_printf(out, "%s0x%02x,", i % 16 ? " " : "\n    ", c);
    }
    sb_puts(out, "\n};\n");
    sb_free(&sym);
}
