/* Structure-aware mutation of YAML documents for the capability-database fuzzer: parse into a
 * small tree, mutate nodes (dictionary values and keys, delete/duplicate/reorder entries, change
 * node kinds, graft subtrees from the real database), and emit valid YAML again. */
#ifndef QDC_FUZZ_YAML_MUTATOR_H
#define QDC_FUZZ_YAML_MUTATOR_H
#include <stddef.h>
#include <stdint.h>

/* Learns keys, values and donor subtrees from every *.yaml file in dir, plus built-in words. */
void ymut_init(const char *dir);
/* Mutates data[0..size) in place into at most max_size bytes; returns the new size, or 0 if
 * data is not a YAML document (the caller then falls back to byte-level mutation). */
size_t ymut_mutate(uint8_t *data, size_t size, size_t max_size, unsigned seed);
/* Grafts a subtree of b into a; the result goes to out. 0 if either does not parse. */
size_t ymut_cross(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, uint8_t *out, size_t max_size,
                  unsigned seed);
#endif
