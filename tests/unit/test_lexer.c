/* Unit tests for the lexer's layout rules and literal decoding (frontend/lex.c). */
#include "frontend/lex.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static Arena arena;

static void quiet(void) {
    DiagConfig c = {.format = DIAG_TEXT, .color = DIAG_COLOR_NEVER, .out = fopen("/dev/null", "w")};
    diag_init(&c);
}
TestSuite(lexer, .init = quiet);

/* Token kinds of text as a compact string: N name, I int, F float, S string, n newline,
 * > indent, < dedent, $ end, punctuators and keywords by spelling. */
static char *kinds(const char *text, bool *ok) {
    static char buf[1024];
    Source *src = source_new("t.qd", text, strlen(text));
    TokenList tl;
    *ok = lex_source(src, &arena, &tl);
    buf[0] = 0;
    for (int k = 0; k < tl.n; k++) {
        const char *s;
        switch (tl.toks[k].kind) {
        case T_NAME: s = "N"; break;
        case T_INT: s = "I"; break;
        case T_FLOAT: s = "F"; break;
        case T_STRING: s = "S"; break;
        case T_NEWLINE: s = "n"; break;
        case T_INDENT: s = ">"; break;
        case T_DEDENT: s = "<"; break;
        case T_EOF: s = "$"; break;
        default: s = tok_spelling(tl.toks[k].kind);
        }
        strcat(buf, s);
        if (k + 1 < tl.n) strcat(buf, " ");
    }
    source_free(src);
    return buf;
}

static void expect_kinds(const char *text, const char *want) {
    bool ok;
    char *got = kinds(text, &ok);
    cr_expect(ok, "lexing failed: %s", text);
    cr_expect_str_eq(got, want, "for %s", text);
}

Test(lexer, indent_dedent_and_blank_lines) {
    expect_kinds("if a:\n    b\n\n  # c\n    c\nd\n", "if N : n > N n N n < N n $");
    expect_kinds("if a:\n  if b:\n    c\nd", "if N : n > if N : n > N n < < N n $");
}

Test(lexer, brackets_continue_lines_and_ignore_indentation) {
    expect_kinds("x = (1,\n  2,\n        3)\ny", "N = ( I , I , I ) n N n $");
    expect_kinds("x = [1\n]\n", "N = [ I ] n $");
}

Test(lexer, backslash_continuation_and_comments) {
    expect_kinds("x = 1 + \\\n      2  # c\ny", "N = I + I n N n $");
}

Test(lexer, tabs_are_consistent_when_the_meaning_does_not_depend_on_tab_size) {
    expect_kinds("if a:\n\tb\n\tc\n", "if N : n > N n N n < $");
    bool ok;
    kinds("if a:\n        b\n\tc\n", &ok); /* 8 spaces vs one tab: a TabError */
    cr_expect_gt(diag_error_count(), 0);
}

Test(lexer, crlf_and_missing_final_newline) {
    expect_kinds("a\r\nb", "N n N n $");
}

Test(lexer, numeric_literals) {
    const char *text = "0x_FF 0b1010 0o17 1_000 1.5e-3 .5 7. 1E3 0";
    Source *src = source_new("t.qd", text, strlen(text));
    TokenList tl;
    cr_assert(lex_source(src, &arena, &tl));
    cr_expect_eq(tl.toks[0].i, 255);
    cr_expect_eq(tl.toks[1].i, 10);
    cr_expect_eq(tl.toks[2].i, 15);
    cr_expect_eq(tl.toks[3].i, 1000);
    cr_expect_float_eq(tl.toks[4].f, 1.5e-3, 1e-12);
    cr_expect_float_eq(tl.toks[5].f, 0.5, 1e-12);
    cr_expect_float_eq(tl.toks[6].f, 7.0, 1e-12);
    cr_expect_eq(tl.toks[7].kind, T_FLOAT);
    cr_expect_eq(tl.toks[8].kind, T_INT);
    cr_expect_eq(diag_error_count(), 0);
    source_free(src);
}

Test(lexer, strings_decode_escapes_and_triple_quotes) {
    const char *text = "'a\\n' \"b\" '''c\nd''' r'\\n'";
    Source *src = source_new("t.qd", text, strlen(text));
    TokenList tl;
    cr_assert(lex_source(src, &arena, &tl));
    cr_expect_str_eq(tl.toks[0].s, "a\n");
    cr_expect_str_eq(tl.toks[1].s, "b");
    cr_expect_str_eq(tl.toks[2].s, "c\nd");
    cr_expect_str_eq(tl.toks[3].s, "\\n");
    source_free(src);
}

Test(lexer, keywords_and_longest_punctuators) {
    expect_kinds("a //= b ** c -> d >>= e", "N //= N ** N -> N >>= N n $");
    expect_kinds("not x and y", "not N and N n $");
}

Test(lexer, bad_bytes_are_fatal) {
    bool ok;
    kinds("a = 1\n\xff\n", &ok);
    cr_expect(!ok);
    Source *src = source_new("t.qd", "a\0b", 3);
    TokenList tl;
    cr_expect(!lex_source(src, &arena, &tl));
    source_free(src);
}

Test(lexer, nesting_limit_is_an_error_not_a_crash) {
    static char deep[QDL_MAX_NESTING * 2 + 16];
    memset(deep, '(', QDL_MAX_NESTING + 1);
    bool ok;
    kinds(deep, &ok);
    cr_expect(!ok);
    memset(deep, 0, sizeof deep);
    memset(deep, '(', QDL_MAX_NESTING);
    memset(deep + QDL_MAX_NESTING, ')', QDL_MAX_NESTING);
    kinds(deep, &ok);
    cr_expect(ok, "exactly the limit is accepted");
}
