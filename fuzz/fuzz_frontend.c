/* libFuzzer target: lexer + parser + checker (and the AST/IR dumps) on arbitrary bytes. */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    fuzz_quiet_diagnostics();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_compile("fuzz.qd", data, size, NULL);
    return 0;
}
