/* --emit=ast: the stable textual dump of the syntax tree, for tests and debugging.
 *
 * Format (version 1). The first line is "; qdc ast 1". Then one statement per line, indented
 * two spaces per block level, each as "(kind @L:C ...)" where L:C is the 1-based line and
 * byte column of the node's first character. Expressions are written inline in the same
 * S-expression style:
 *   (name x @L:C)  (int 42 @L:C)  (float 1.5 @L:C)  (str "acquire" @L:C)  (bool True @L:C)
 *   (none @L:C)  (attr NAME OBJ @L:C)  (call FN ARG... (kw NAME VALUE)... @L:C)
 *   (subscript OBJ INDEX @L:C)  (tuple X... @L:C)  (list X... @L:C)  (unary OP X @L:C)
 *   (binary OP A B @L:C)  (boolop and|or X... @L:C)  (compare A OP B OP C... @L:C)
 *   (ifexp COND A B @L:C)  (error @L:C)
 * Statements: (expr E), (assign TARGET... = VALUE), (annassign T ANNOT [VALUE]),
 * (augassign T OP VALUE), (if COND) with "then:"/"else:" blocks, (while COND), (for T ITER),
 * (break), (continue), (pass), (return [E]), (import MODULE [as ALIAS]),
 * (def NAME (param NAME [ANNOT] [= DEFAULT])... [-> RET]) preceded by (decorator E) lines.
 * Floats print with %.17g; strings are JSON-escaped. Nothing else (no addresses, no paths). */
#include "ast.h"
#include "../support/json.h"
#include "frontend.h"
#include "lex.h"
#include <string.h>

static void pos(const Span *sp, StrBuf *out) {
    uint32_t line = 0, col = 0;
    if (sp->src) source_line_col(sp->src, sp->off, &line, &col);
    sb_printf(out, " @%u:%u)", line, col);
}

static void dump_expr(const Expr *e, StrBuf *out);

static void dump_list(const ExprList *l, StrBuf *out) {
    for (int k = 0; k < l->n; k++) sb_putc(out, ' '), dump_expr(l->items[k], out);
}

static void dump_expr(const Expr *e, StrBuf *out) {
    switch (e->kind) {
    case E_NAME: sb_printf(out, "(name %s", e->name); break;
    case E_INT: sb_printf(out, "(int %llu", (unsigned long long)e->i); break;
    case E_FLOAT: sb_printf(out, "(float %.17g", e->f); break;
    case E_STR: sb_puts(out, "(str "), json_str(out, e->str); break;
    case E_BOOL: sb_printf(out, "(bool %s", e->b ? "True" : "False"); break;
    case E_NONE: sb_puts(out, "(none"); break;
    case E_ERROR: sb_puts(out, "(error"); break;
    case E_ATTR: sb_printf(out, "(attr %s ", e->attr.name), dump_expr(e->attr.obj, out); break;
    case E_CALL:
        sb_puts(out, "(call "), dump_expr(e->call.fn, out), dump_list(&e->call.args, out);
        for (int k = 0; k < e->call.nkw; k++) {
            sb_printf(out, " (kw %s ", e->call.kw[k].name);
            dump_expr(e->call.kw[k].value, out);
            sb_putc(out, ')');
        }
        break;
    case E_SUBSCRIPT:
        sb_puts(out, "(subscript "), dump_expr(e->sub.obj, out), sb_putc(out, ' '), dump_expr(e->sub.index, out);
        break;
    case E_TUPLE: sb_puts(out, "(tuple"), dump_list(&e->list, out); break;
    case E_LIST: sb_puts(out, "(list"), dump_list(&e->list, out); break;
    case E_UNARY: sb_printf(out, "(unary %s ", tok_spelling((TokKind)e->op)), dump_expr(e->un.a, out); break;
    case E_BINARY:
        sb_printf(out, "(binary %s ", tok_spelling((TokKind)e->op));
        dump_expr(e->bin.a, out), sb_putc(out, ' '), dump_expr(e->bin.b, out);
        break;
    case E_BOOLOP: sb_printf(out, "(boolop %s", tok_spelling((TokKind)e->op)), dump_list(&e->list, out); break;
    case E_COMPARE:
        sb_puts(out, "(compare "), dump_expr(e->cmp.items.items[0], out);
        for (int k = 1; k < e->cmp.items.n; k++) {
            int op = e->cmp.ops[k - 1];
            sb_printf(out, " %s ", op == CMP_NOT_IN ? "not in" : op == T_KW_NOT ? "is not" : tok_spelling((TokKind)op));
            dump_expr(e->cmp.items.items[k], out);
        }
        break;
    case E_IFEXP:
        sb_puts(out, "(ifexp "), dump_expr(e->ifexp.cond, out), sb_putc(out, ' ');
        dump_expr(e->ifexp.a, out), sb_putc(out, ' '), dump_expr(e->ifexp.b, out);
        break;
    case E_NAMED: sb_puts(out, "(named "), dump_expr(e->bin.a, out), sb_putc(out, ' '), dump_expr(e->bin.b, out); break;
    case E_STARRED: sb_puts(out, "(starred "), dump_expr(e->un.a, out); break;
    case E_SLICE:
        sb_puts(out, "(slice");
        for (int k = 0; k < 3; k++) {
            const Expr *p = k == 0 ? e->slice.lo : k == 1 ? e->slice.hi : e->slice.step;
            sb_putc(out, ' ');
            if (p) dump_expr(p, out);
            else sb_puts(out, "_");
        }
        break;
    case E_COMP:
        sb_puts(out, e->comp.gen ? "(genexp " : "(listcomp "), dump_expr(e->comp.elt, out);
        for (const Expr *c = e; c; c = c->comp.next) {
            sb_puts(out, " (for "), dump_expr(c->comp.target, out), sb_putc(out, ' '), dump_expr(c->comp.iter, out);
            dump_list(&c->comp.conds, out), sb_putc(out, ')');
        }
        break;
    case E_LAMBDA: sb_printf(out, "(lambda %d ", e->lambda->def.nparams), dump_expr(e->lambda->def.body.stmts[0]->expr, out); break;
    case E_VALUE: sb_puts(out, "(value"); break;
    }
    pos(&e->span, out);
}

static void dump_block(const StmtList *l, int depth, StrBuf *out);

static void indent(int depth, StrBuf *out) {
    for (int k = 0; k < depth; k++) sb_puts(out, "  ");
}

static void dump_def(const Stmt *s, int depth, StrBuf *out) {
    for (int k = 0; k < s->def.decorators.n; k++) {
        indent(depth, out);
        sb_puts(out, "(decorator ");
        dump_expr(s->def.decorators.items[k], out);
        sb_puts(out, ")\n");
    }
    indent(depth, out);
    sb_printf(out, "(%s %s", s->def.host ? "hostdef" : "def", s->def.name ? s->def.name : "?");
    for (int k = 0; k < s->def.nparams; k++) {
        const Param *p = &s->def.params[k];
        sb_printf(out, " (param %s", p->name);
        if (p->annotation) sb_putc(out, ' '), dump_expr(p->annotation, out);
        if (p->dflt) sb_puts(out, " = "), dump_expr(p->dflt, out);
        pos(&p->span, out);
    }
    if (s->def.returns) sb_puts(out, " -> "), dump_expr(s->def.returns, out);
    pos(&s->span, out);
    sb_putc(out, '\n');
    dump_block(&s->def.body, depth + 1, out);
}

static void dump_stmt(const Stmt *s, int depth, StrBuf *out) {
    if (s->kind == S_DEF) return dump_def(s, depth, out);
    indent(depth, out);
    switch (s->kind) {
    case S_EXPR: sb_puts(out, "(expr "), dump_expr(s->expr, out); break;
    case S_ASSIGN:
        sb_puts(out, "(assign"), dump_list(&s->assign.targets, out);
        sb_puts(out, " = "), dump_expr(s->assign.value, out);
        break;
    case S_ANNASSIGN:
        sb_puts(out, "(annassign "), dump_expr(s->ann.target, out), sb_putc(out, ' ');
        dump_expr(s->ann.annotation, out);
        if (s->ann.value) sb_putc(out, ' '), dump_expr(s->ann.value, out);
        break;
    case S_AUGASSIGN:
        sb_puts(out, "(augassign "), dump_expr(s->aug.target, out);
        sb_printf(out, " %s= ", tok_spelling((TokKind)s->aug.op)), dump_expr(s->aug.value, out);
        break;
    case S_IF: sb_puts(out, "(if "), dump_expr(s->if_.cond, out); break;
    case S_WHILE: sb_puts(out, "(while "), dump_expr(s->while_.cond, out); break;
    case S_FOR:
        sb_puts(out, "(for "), dump_expr(s->for_.target, out), sb_putc(out, ' ');
        dump_expr(s->for_.iter, out);
        break;
    case S_BREAK: sb_puts(out, "(break"); break;
    case S_CONTINUE: sb_puts(out, "(continue"); break;
    case S_PASS: sb_puts(out, "(pass"); break;
    case S_ASSERT:
        if (!s->assert_.cond) { sb_puts(out, "(raise "), dump_expr(s->assert_.msg, out); break; }
        sb_puts(out, "(assert "), dump_expr(s->assert_.cond, out);
        if (s->assert_.msg) sb_putc(out, ' '), dump_expr(s->assert_.msg, out);
        break;
    case S_RETURN: sb_puts(out, "(return"); if (s->expr) sb_putc(out, ' '), dump_expr(s->expr, out); break;
    case S_IMPORT:
        if (s->import.name || s->import.star)
            sb_printf(out, "(from %.*s%s import %s", s->import.level, "........................", s->import.module,
                      s->import.star ? "*" : s->import.name);
        else sb_printf(out, "(import %s", s->import.module ? s->import.module : "?");
        if (s->import.alias && (!s->import.user || s->import.name || strcmp(s->import.alias, s->import.module)))
            sb_printf(out, " as %s", s->import.alias);
        break;
    case S_DEF: break;
    case S_CLASS: sb_printf(out, "(class %s", s->class_.name); break;
    case S_HOST:
        sb_printf(out, "(host %s", s->host.what);
        for (int k = 0; k < s->host.names.n; k++) sb_printf(out, " %s", s->host.names.items[k]->name);
        break;
    }
    pos(&s->span, out);
    sb_putc(out, '\n');
    if (s->kind == S_IF) {
        indent(depth, out), sb_puts(out, "then:\n"), dump_block(&s->if_.then, depth + 1, out);
        if (s->if_.els.n) indent(depth, out), sb_puts(out, "else:\n"), dump_block(&s->if_.els, depth + 1, out);
    } else if (s->kind == S_WHILE) {
        dump_block(&s->while_.body, depth + 1, out);
    } else if (s->kind == S_FOR) {
        dump_block(&s->for_.body, depth + 1, out);
    } else if (s->kind == S_CLASS) {
        dump_block(&s->class_.body, depth + 1, out);
    }
}

static void dump_block(const StmtList *l, int depth, StrBuf *out) {
    for (int k = 0; k < l->n; k++) dump_stmt(l->stmts[k], depth, out);
}

void ast_dump(const AstModule *m, StrBuf *out) {
    sb_puts(out, "; qdc ast 1\n");
    dump_block(&m->body, 0, out);
}
