/* Cutting very long basic blocks before instruction selection (see blocksplit.c). */
#ifndef QDC_LLVM_BLOCKSPLIT_H
#define QDC_LLVM_BLOCKSPLIT_H
#include <llvm-c/Core.h>

/* Splits every block of `mod` longer than the trigger into bounded pieces; returns the number of
 * cuts made (0 for ordinary kernels, whose output is then unchanged). `pin`, when not NULL, is
 * the inline-asm register constraint that keeps each value in the piece defining it through the
 * target's codegen IR passes (LlvmTarget.pin_constraint). */
unsigned cg_split_long_blocks(LLVMModuleRef mod, const char *pin);

#endif
