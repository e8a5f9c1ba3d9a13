/* Cutting very long basic blocks before instruction selection (see blocksplit.c). */
#ifndef QDC_LLVM_BLOCKSPLIT_H
#define QDC_LLVM_BLOCKSPLIT_H
#include <llvm-c/Core.h>

/* Splits every block of `mod` longer than the trigger into bounded pieces; returns the number of
 * cuts made (0 for ordinary kernels, whose output is then unchanged). */
unsigned cg_split_long_blocks(LLVMModuleRef mod);

#endif
