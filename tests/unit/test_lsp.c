/* `qdc --lsp` driven by a scripted client (issue 35.9): the frames written to its standard
 * input, the exact frames it answers with on standard output (nothing else there), and its
 * exit status. Documents live in a temporary directory; their URIs are built from its path. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void frame(StrBuf *b, const char *body) { sb_printf(b, "Content-Length: %zu\r\n\r\n%s", strlen(body), body); }

/* The frames of an answer, in order. */
static char *frames(const char *const *bodies) {
    StrBuf b;
    sb_init(&b);
    for (int i = 0; bodies[i]; i++) frame(&b, bodies[i]);
    sb_putc(&b, 0);
    return sb_take(&b);
}

static RunResult serve(const char *input, const char *flag) {
    const char *args[] = {"--lsp", flag, NULL};
    return run_qdc_argv(args, input, NULL);
}

#define INIT_REPLY                                                                                                  \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"capabilities\":{\"positionEncoding\":\"utf-16\",\"textDocumentSync\":" \
    "{\"openClose\":true,\"change\":1,\"save\":{\"includeText\":false}},\"hoverProvider\":true,\"definitionProvider\":true}," \
    "\"serverInfo\":{\"name\":\"qdc\",\"version\":\""

static const char *KERNEL = "import quadrants as qd\n"
                            "\n"
                            "@qd.kernel\n"
                            "def k(a: qd.types.ndarray(dtype=qd.f64, ndim=1)):\n"
                            "    for i in range(4):\n"
                            "        qd.atomic_max(a[0], 1.0)\n";

/* initialize (targets from initializationOptions), didOpen of a kernel one family refuses,
 * hover on the atomic, definition of `a`, an unknown method, shutdown, exit. */
Test(lsp, diagnostics_hover_definition_shutdown) {
    char *dir = make_temp_dir();
    char *doc = xasprintf("file://%s/k.qd", dir);
    StrBuf in;
    sb_init(&in);
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"capabilities\":{},"
               "\"initializationOptions\":{\"targets\":[\"gfx906\",\"vulkan1.1\"]}}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
    StrBuf open;
    sb_init(&open);
    sb_printf(&open, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"%s\","
                     "\"languageId\":\"python\",\"version\":1,\"text\":\"", doc);
    for (const char *p = KERNEL; *p; p++) *p == '\n' ? sb_puts(&open, "\\n") : sb_putc(&open, *p);
    sb_puts(&open, "\"}}}");
    frame(&in, open.data);
    char *hover = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":"
                            "{\"uri\":\"%s\"},\"position\":{\"line\":5,\"character\":12}}}", doc);
    char *def = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"method\":\"textDocument/definition\",\"params\":{\"textDocument\":"
                          "{\"uri\":\"%s\"},\"position\":{\"line\":5,\"character\":22}}}", doc);
    frame(&in, hover), frame(&in, def);
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"workspace/symbol\",\"params\":{\"query\":\"\"}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"shutdown\"}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"textDocument/hover\",\"params\":{}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    RunResult r = serve(in.data, "--error-limit=5");
    char *diags = xasprintf(
        "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\",\"params\":{\"uri\":\"%s\",\"diagnostics\":["
        "{\"range\":{\"start\":{\"line\":5,\"character\":8},\"end\":{\"line\":5,\"character\":32}},\"severity\":1,"
        "\"code\":\"QD4001\",\"source\":\"qdc\",\"message\":\"atomic max on f64 in global memory is not supported on target "
        "'vulkan1.1' (capability-db/vulkan1.1.yaml:92)\",\"relatedInformation\":[{\"location\":{\"uri\":\"%s\",\"range\":"
        "{\"start\":{\"line\":5,\"character\":8},\"end\":{\"line\":5,\"character\":32}}},\"message\":\"pass "
        "--cap=+float64-atomic-min-max if the device has it: shaderBufferFloat64AtomicMinMax + "
        "shaderSharedFloat64AtomicMinMax (VK_EXT_shader_atomic_float2)\"}]}]}}", doc, doc);
    const char *hover_reply =
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"contents\":{\"kind\":\"markdown\",\"value\":\"**max** `f64` (global)\\n\\n"
        "| family | lowering | decided by |\\n|---|---|---|\\n| gfx906 | cas (max) | capability-db/gfx906.yaml:ops.max.f64.global |\\n"
        "\\nrefused: atomic max on f64 in global memory is not supported on target 'vulkan1.1' "
        "(capability-db/vulkan1.1.yaml:92)\\n\"}}}";
    char *def_reply = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"result\":{\"uri\":\"%s\",\"range\":{\"start\":{\"line\":3,"
                                "\"character\":6},\"end\":{\"line\":3,\"character\":7}}}}", doc);
    /* the version in serverInfo comes from VERSION: compare up to it, then from its end */
    const char *v = strstr(r.out, "\"version\":\"");
    cr_assert(v, "%s", r.out);
    const char *after = strstr(v + 11, "\"}}}");
    cr_assert(after);
    char *head = xasprintf("Content-Length: %zu\r\n\r\n" INIT_REPLY, strlen(INIT_REPLY) + (size_t)(after - v - 11) + 4);
    cr_expect(!strncmp(r.out, head, strlen(head)), "%s", r.out);
    const char *rest[] = {diags, hover_reply, def_reply,
                          "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32601,\"message\":\"method 'workspace/symbol' is not supported\"}}",
                          "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":null}",
                          "{\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":-32600,\"message\":\"the server is shut down; only 'exit' is accepted\"}}",
                          NULL};
    char *want = frames(rest);
    cr_expect_str_eq(after + 4, want);
    cr_expect_str_empty(r.err);
    cr_expect_eq(r.status, 0);
    run_free(&r);
    free(want), free(head), free(def_reply), free(diags), free(hover), free(def), free(doc);
    sb_free(&in), sb_free(&open);
    remove_tree(dir), free(dir);
}

/* Bad input never crashes it and never puts anything but frames on stdout: malformed JSON is
 * a parse error (id null), a frame without Content-Length is skipped (stderr says so), a
 * request before initialize is ServerNotInitialized, end of input without exit is status 1. */
Test(lsp, malformed_input_and_protocol_order) {
    StrBuf in;
    sb_init(&in);
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"textDocument/hover\",\"params\":{}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":");
    sb_puts(&in, "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n");
    frame(&in, "[1,2]");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{\"capabilities\":{\"general\":"
               "{\"positionEncodings\":[\"utf-8\",\"utf-16\"]}}}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":{}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":null}"); /* a response: ignored */
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":10}");
    frame(&in, "\"\\ud800\"");
    RunResult r = serve(in.data, "--target=x86_64");
    char *init = xasprintf("\"positionEncoding\":\"utf-8\"");
    cr_expect(strstr(r.out, init), "%s", r.out);
    const char *err_frames[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32002,\"message\":\"the server is not initialized\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"the message is not valid JSON\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"not a JSON-RPC request or notification\"}}",
        NULL};
    char *want = frames(err_frames);
    cr_expect(!strncmp(r.out, want, strlen(want)), "%s", r.out);
    const char *tail_frames[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32600,\"message\":\"initialize was already received\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":10,\"error\":{\"code\":-32600,\"message\":\"not a JSON-RPC request or notification\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"not a JSON-RPC request or notification\"}}",
        NULL};
    char *tail = frames(tail_frames);
    size_t n = strlen(r.out), t = strlen(tail);
    cr_expect(n > t && !strcmp(r.out + n - t, tail), "%s", r.out);
    cr_expect_str_eq(r.err, "qdc --lsp: a message without a valid Content-Length header (at most 67108864 bytes) is skipped\n");
    cr_expect_eq(r.status, 1);
    run_free(&r);
    free(init), free(want), free(tail);
    sb_free(&in);
}

/* A project's .qdc-lsp (one flag a line, '#' comments) picks the families; a change is checked
 * again (whole texts and ranges); UTF-16 columns count a non-ASCII character once; didClose
 * clears the document's diagnostics. */
Test(lsp, project_config_change_and_close) {
    char *dir = make_temp_dir();
    char *cfg = xasprintf("%s/.qdc-lsp", dir), *sub = xasprintf("%s/src", dir);
    cr_assert(write_text(cfg, "# the families this project builds\n--target=vulkan1.1\n\n"));
    const char *mk[] = {"mkdir", sub, NULL};
    RunResult m = run_argv(mk, NULL, NULL);
    cr_assert_eq(m.status, 0);
    run_free(&m);
    char *doc = xasprintf("file://%s/src/k.qd", dir);
    StrBuf in;
    sb_init(&in);
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
    char *open = xasprintf("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"%s\","
                           "\"version\":1,\"text\":\"import quadrants as qd\\n@qd.kernel\\ndef k(a: qd.types.ndarray("
                           "dtype=qd.f64, ndim=1)):\\n    a[0] = 1.0\\n\"}}}", doc);
    char *change = xasprintf("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{\"textDocument\":{\"uri\":\"%s\","
                             "\"version\":2},\"contentChanges\":[{\"text\":\"import quadrants as qd\\n@qd.kernel\\ndef k(a: qd.types.ndarray("
                             "dtype=qd.f64, ndim=1)):\\n    qd.atomic_max(a[0], 1.0)\\n\"}]}}", doc);
    char *change2 = xasprintf("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{\"textDocument\":{\"uri\":\"%s\","
                              "\"version\":3},\"contentChanges\":[{\"range\":{\"start\":{\"line\":3,\"character\":4},\"end\":"
                              "{\"line\":3,\"character\":4}},\"text\":\"\\u00e9 = 1; \"}]}}", doc);
    char *close = xasprintf("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didClose\",\"params\":{\"textDocument\":{\"uri\":\"%s\"}}}", doc);
    frame(&in, open), frame(&in, change), frame(&in, change2), frame(&in, close);
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\"}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    const char *args[] = {"--lsp", NULL};
    RunResult r = run_qdc_argv(args, in.data, NULL);
    char *clean = xasprintf("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\",\"params\":{\"uri\":\"%s\","
                            "\"diagnostics\":[]}}", doc);
    char *refused = xasprintf(
        "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\",\"params\":{\"uri\":\"%s\",\"diagnostics\":["
        "{\"range\":{\"start\":{\"line\":3,\"character\":4},\"end\":{\"line\":3,\"character\":28}},\"severity\":1,"
        "\"code\":\"QD4001\",\"source\":\"qdc\",\"message\":\"atomic max on f64 in global memory is not supported on target "
        "'vulkan1.1' (capability-db/vulkan1.1.yaml:92)\",\"relatedInformation\":[{\"location\":{\"uri\":\"%s\",\"range\":"
        "{\"start\":{\"line\":3,\"character\":4},\"end\":{\"line\":3,\"character\":28}}},\"message\":\"pass "
        "--cap=+float64-atomic-min-max if the device has it: shaderBufferFloat64AtomicMinMax + "
        "shaderSharedFloat64AtomicMinMax (VK_EXT_shader_atomic_float2)\"}]}]}}", doc, doc);
    /* the incremental change's é (2 bytes, 1 UTF-16 unit) */
    char *ascii = xasprintf("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\",\"params\":{\"uri\":\"%s\","
                            "\"diagnostics\":[{\"range\":{\"start\":{\"line\":3,\"character\":4},\"end\":{\"line\":3,"
                            "\"character\":5}},\"severity\":1,\"code\":\"QD1001\",\"source\":\"qdc\",\"message\":\"invalid "
                            "character '\u00e9'; identifiers must be ASCII\"}]}}", doc);
    const char *after = strstr(r.out, "\"}}}");
    cr_assert(after, "%s", r.out);
    const char *rest[] = {clean, refused, ascii, clean, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":null}", NULL};
    char *want = frames(rest);
    cr_expect_str_eq(after + 4, want);
    cr_expect_eq(r.status, 0);
    run_free(&r);
    free(want), free(clean), free(refused), free(ascii), free(open), free(change), free(change2), free(close), free(doc), free(cfg), free(sub);
    sb_free(&in);
    remove_tree(dir), free(dir);
}

/* A definition reply: a Location in file (an absolute path) */
static char *location(const char *id, const char *file, int l0, int c0, int l1, int c1) {
    return xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"uri\":\"file://%s\",\"range\":{\"start\":{\"line\":%d,"
                     "\"character\":%d},\"end\":{\"line\":%d,\"character\":%d}}}}", id, file, l0, c0, l1, c1);
}

static void open_doc(StrBuf *in, const char *uri, const char *text) {
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"%s\","
                  "\"version\":1,\"text\":\"", uri);
    for (const char *p = text; *p; p++) *p == '\n' ? sb_puts(&b, "\\n") : sb_putc(&b, *p);
    sb_puts(&b, "\"}}}");
    frame(in, b.data);
    sb_free(&b);
}

static void ask_definition(StrBuf *in, int id, const char *uri, int line, int ch) {
    char *q = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"textDocument/definition\",\"params\":{\"textDocument\":"
                        "{\"uri\":\"%s\"},\"position\":{\"line\":%d,\"character\":%d}}}", id, uri, line, ch);
    frame(in, q), free(q);
}

static const char *HELPERS = "import quadrants as qd\n\nSCALE = 2.0\n\n\n@qd.func\ndef twice(x):\n    return x * SCALE\n";
static const char *MAIN = "import quadrants as qd\n"
                          "from .helpers import twice as tw\n"
                          "from . import helpers\n"
                          "import mathx\n"
                          "\n"
                          "\n"
                          "@qd.kernel\n"
                          "def k(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                          "    for i in range(4):\n"
                          "        a[i] = tw(a[i]) + helpers.SCALE + mathx.half(1.0)\n";
static const char *RUN = "import quadrants as qd\n"
                         "import pkg.helpers\n"
                         "import pkg.helpers as ph\n"
                         "\n"
                         "\n"
                         "@qd.kernel\n"
                         "def k(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                         "    a[0] = pkg.helpers.twice(1.0) + ph.SCALE\n";

/* A project of two files and a library (issue 35.9): app/pkg/main.py imports app/pkg/helpers.py
 * relatively and lib/mathx.py through the -I of app/.qdc-lsp; app/run.py imports the package
 * absolutely. The checks see no false import errors (the copy is checked under the document's
 * name), and definition jumps into the other files: a from-import's name, a module's
 * attribute, a module name, a package. */
Test(lsp, imports_resolve_and_definition_crosses_files) {
    char *tmp = make_temp_dir(), *dir = realpath(tmp, NULL);
    cr_assert(dir);
    char *app = xasprintf("%s/app", dir), *pkg = xasprintf("%s/app/pkg", dir), *lib = xasprintf("%s/lib", dir);
    const char *mk[] = {"mkdir", app, pkg, lib, NULL};
    RunResult m = run_argv(mk, NULL, NULL);
    cr_assert_eq(m.status, 0);
    run_free(&m);
    char *files[][2] = {{xasprintf("%s/.qdc-lsp", app), xstrdup("-I\n../lib\n")},
                        {xasprintf("%s/__init__.py", pkg), xstrdup("")},
                        {xasprintf("%s/helpers.py", pkg), xstrdup(HELPERS)},
                        {xasprintf("%s/mathx.py", lib), xstrdup("import quadrants as qd\n\n\n@qd.func\ndef half(x):\n    return x * 0.5\n")}};
    for (int i = 0; i < 4; i++) cr_assert(write_text(files[i][0], files[i][1]));
    /* the documents exist only in the client (never saved) */
    char *main_uri = xasprintf("file://%s/main.py", pkg), *run_uri = xasprintf("file://%s/run.py", app);
    StrBuf in;
    sb_init(&in);
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
    open_doc(&in, main_uri, MAIN);
    ask_definition(&in, 10, main_uri, 9, 15); /* tw */
    ask_definition(&in, 11, main_uri, 9, 26); /* helpers */
    ask_definition(&in, 12, main_uri, 9, 34); /* helpers.SCALE */
    ask_definition(&in, 13, main_uri, 9, 42); /* mathx */
    ask_definition(&in, 14, main_uri, 9, 48); /* mathx.half */
    ask_definition(&in, 15, main_uri, 9, 8);  /* a: still the parameter */
    open_doc(&in, run_uri, RUN);
    ask_definition(&in, 20, run_uri, 7, 11); /* pkg: the package */
    ask_definition(&in, 21, run_uri, 7, 23); /* pkg.helpers.twice */
    ask_definition(&in, 22, run_uri, 7, 39); /* ph.SCALE */
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\"}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    const char *args[] = {"--lsp", NULL};
    RunResult r = run_qdc_argv(args, in.data, NULL);
    char *helpers = files[2][0], *mathx = files[3][0], *init = files[1][0];
    char *main_path = xasprintf("%s/main.py", pkg);
    char *clean_main = xasprintf("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\",\"params\":{\"uri\":\"%s\","
                                 "\"diagnostics\":[]}}", main_uri);
    char *clean_run = xasprintf("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\",\"params\":{\"uri\":\"%s\","
                                "\"diagnostics\":[]}}", run_uri);
    char *want_items[] = {clean_main,
                          location("10", helpers, 6, 4, 6, 9),
                          location("11", helpers, 0, 0, 0, 0),
                          location("12", helpers, 2, 0, 2, 5),
                          location("13", mathx, 0, 0, 0, 0),
                          location("14", mathx, 4, 4, 4, 8),
                          location("15", main_path, 7, 6, 7, 7),
                          clean_run,
                          location("20", init, 0, 0, 0, 0),
                          location("21", helpers, 6, 4, 6, 9),
                          location("22", helpers, 2, 0, 2, 5),
                          "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":null}",
                          NULL};
    char *want = frames((const char *const *)want_items);
    const char *after = strstr(r.out, "\"}}}"); /* past the initialize reply */
    cr_assert(after, "%s", r.out);
    cr_expect_str_eq(after + 4, want);
    cr_expect_str_empty(r.err);
    cr_expect_eq(r.status, 0);
    run_free(&r);
    for (int i = 1; i < 11; i++) if (i != 7) free(want_items[i]);
    free(want), free(clean_main), free(clean_run), free(main_path), free(main_uri), free(run_uri);
    for (int i = 0; i < 4; i++) free(files[i][0]), free(files[i][1]);
    free(app), free(pkg), free(lib);
    sb_free(&in);
    remove_tree(dir), free(dir), free(tmp);
}

/* --input-name: the copy's text under the document's name; its imports resolve from there. */
Test(lsp, input_name_names_the_checked_copy) {
    char *tmp = make_temp_dir(), *dir = realpath(tmp, NULL);
    cr_assert(dir);
    char *pkg = xasprintf("%s/pkg", dir), *elsewhere = xasprintf("%s/other", dir);
    const char *mk[] = {"mkdir", pkg, elsewhere, NULL};
    RunResult m = run_argv(mk, NULL, NULL);
    cr_assert_eq(m.status, 0);
    run_free(&m);
    char *init = xasprintf("%s/__init__.py", pkg), *helpers = xasprintf("%s/helpers.py", pkg);
    char *copy = xasprintf("%s/main.py", elsewhere), *name = xasprintf("%s/main.py", pkg);
    char *flag = xasprintf("--input-name=%s", name);
    cr_assert(write_text(init, "") && write_text(helpers, HELPERS));
    cr_assert(write_text(copy, "import quadrants as qd\nfrom .helpers import twice\n\n\n@qd.kernel\n"
                               "def k(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n    a[0] = twice(1.0)\n"));
    const char *bare[] = {"--check", "-I", elsewhere, copy, NULL};
    RunResult r = run_qdc_argv(bare, NULL, NULL);
    char *want = xasprintf("%s:2:1: error[QD2065]: attempted relative import with no known parent package", copy);
    cr_expect(!strncmp(r.err, want, strlen(want)), "%s", r.err);
    cr_expect_eq(r.status, 1);
    run_free(&r);
    const char *named[] = {"--check", flag, copy, NULL};
    r = run_qdc_argv(named, NULL, NULL);
    cr_expect_str_empty(r.err);
    cr_expect_eq(r.status, 0);
    run_free(&r);
    cr_assert(write_text(copy, "import quadrants as qd\nfrom .helpers import nothing\n"));
    r = run_qdc_argv(named, NULL, NULL);
    free(want);
    want = xasprintf("%s:2:1: error[QD2065]: cannot import name 'nothing' from 'pkg.helpers' (%s)\n", name, helpers);
    cr_expect(!strncmp(r.err, want, strlen(want)), "%s", r.err);
    cr_expect_eq(r.status, 1);
    run_free(&r);
    free(want), free(flag), free(name), free(copy), free(helpers), free(init), free(pkg), free(elsewhere);
    remove_tree(dir), free(dir), free(tmp);
}
