/* The evaluator's host scalars (value.h): what is computed from one and does not fit an inline
 * accessor, its spelling in instantiation names. (Python's integer arithmetic, on ints of any
 * size, is sema_pyint.c's.) */
#include "py.h"
#include <stdio.h>

/* One spelling for every instantiation name (a qd.template() argument, a generic dataclass
 * member, a pytest parameter's id): True/False; an int in decimal, "m" for its minus sign (an
 * unsigned one past INT64_MAX is positive: 18446744073709551615); a float as %g writes it, '-'
 * 'm', '.' 'p' and '+' '_' (2.5: 2p5, -1e+20: m1e_20). */
bool val_host_spell(StrBuf *b, Val v) {
    if (!val_is_host_scalar(v)) return false;
    if (val_is_host_bool(v)) {
        sb_puts(b, val_host_u64(v) ? "True" : "False");
    } else if (val_is_host_float(v)) {
        char buf[64];
        snprintf(buf, sizeof buf, "%g", val_host_f64(v));
        for (char *q = buf; *q; q++) sb_putc(b, *q == '-' ? 'm' : *q == '.' ? 'p' : *q == '+' ? '_' : *q);
    } else if (qt_is_signed(val_host_type(v)) && val_host_i64(v) < 0) {
        sb_printf(b, "m%llu", 0ull - (unsigned long long)val_host_u64(v));
    } else {
        sb_printf(b, "%llu", (unsigned long long)val_host_u64(v));
    }
    return true;
}
