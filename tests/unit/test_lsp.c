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
        "'vulkan1.1' (capability-db/vulkan1.1.yaml:90)\",\"relatedInformation\":[{\"location\":{\"uri\":\"%s\",\"range\":"
        "{\"start\":{\"line\":5,\"character\":8},\"end\":{\"line\":5,\"character\":32}}},\"message\":\"pass "
        "--cap=+float64-atomic-min-max if the device has it: shaderBufferFloat64AtomicMinMax + "
        "shaderSharedFloat64AtomicMinMax (VK_EXT_shader_atomic_float2)\"}]}]}}", doc, doc);
    const char *hover_reply =
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"contents\":{\"kind\":\"markdown\",\"value\":\"**max** `f64` (global)\\n\\n"
        "| family | lowering | decided by |\\n|---|---|---|\\n| gfx906 | cas (max) | capability-db/gfx906.yaml:ops.max.f64.global |\\n"
        "\\nrefused: atomic max on f64 in global memory is not supported on target 'vulkan1.1' "
        "(capability-db/vulkan1.1.yaml:90)\\n\"}}}";
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
        "'vulkan1.1' (capability-db/vulkan1.1.yaml:90)\",\"relatedInformation\":[{\"location\":{\"uri\":\"%s\",\"range\":"
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
