/* Token-level mutation of kernel source text for libFuzzer's custom mutator: operators,
 * numbers at type edges, dtype and builtin names, postfix chains, line duplication, splices. */
#ifndef QDC_KERNEL_MUTATOR_H
#define QDC_KERNEL_MUTATOR_H
#include <stddef.h>
#include <stdint.h>

/* Mutates data (size bytes, capacity max_size) in place; returns the new size, 0 if no
 * token-level mutation applied (the caller falls back to byte mutation). */
size_t kmut_mutate(uint8_t *data, size_t size, size_t max_size, unsigned seed);
#endif
