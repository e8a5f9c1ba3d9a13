/* Golden AMDGPU assembly for the examples/ kernels on gfx90a and gfx942 (testdata/amdgpu/,
 * QDC_UPDATE_GOLDEN=1 rewrites them). */
#include "test_ptx_ir.h"

Test(amdgpu_golden, examples_gfx90a) { cr_expect_geq(golden_examples("amdgpu", "gfx90a", ".s", NULL), 8); }
Test(amdgpu_golden, examples_gfx942) { cr_expect_geq(golden_examples("amdgpu", "gfx942", ".s", NULL), 8); }
