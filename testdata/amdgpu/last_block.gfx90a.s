	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.amdhsa_code_object_version 5
	.globl	last_block_t0
	.p2align	8
	.type	last_block_t0,@function
last_block_t0:
	s_load_dword s0, s[4:5], 0x4
	s_waitcnt lgkmcnt(0)
	s_and_b32 s0, s0, 0xffff
	s_mul_i32 s8, s8, s0
	v_add_u32_e32 v0, s8, v0
	v_cmp_gt_i32_e32 vcc, 1, v0
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_4
	s_load_dword s0, s[4:5], 0xc
	s_getpc_b64 s[2:3]
	s_add_u32 s2, s2, qd_field_tickets@gotpcrel32@lo+4
	s_addc_u32 s3, s3, qd_field_tickets@gotpcrel32@hi+12
	s_load_dwordx2 s[2:3], s[2:3], 0x0
	v_mov_b32_e32 v1, 0
	s_waitcnt lgkmcnt(0)
	v_or_b32_e32 v0, s0, v0
	v_cmp_eq_u32_e32 vcc, 0, v0
	global_store_dword v1, v1, s[2:3]
	s_and_b64 exec, exec, vcc
	s_cbranch_execz .LBB0_4
	s_cmp_lg_u32 s0, 0
	s_cselect_b64 s[0:1], -1, 0
	v_cndmask_b32_e64 v0, 0, 1, s[0:1]
	v_cmp_ne_u32_e64 s[0:1], 1, v0
.LBB0_3:
	s_and_b64 vcc, exec, s[0:1]
	s_cbranch_vccnz .LBB0_3
.LBB0_4:
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel last_block_t0
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 12
		.amdhsa_user_sgpr_count 8
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_flat_scratch_init 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_system_sgpr_private_segment_wavefront_offset 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 2
		.amdhsa_next_free_sgpr 9
		.amdhsa_accum_offset 4
		.amdhsa_reserve_vcc 1
		.amdhsa_reserve_flat_scratch 0
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end0:
	.size	last_block_t0, .Lfunc_end0-last_block_t0

	.globl	last_block_t1
	.p2align	8
	.type	last_block_t1,@function
last_block_t1:
	s_load_dword s1, s[4:5], 0x4
	s_load_dword s0, s[6:7], 0x8
	s_waitcnt lgkmcnt(0)
	s_and_b32 s1, s1, 0xffff
	s_mul_i32 s8, s8, s1
	s_max_i32 s12, s0, 0
	s_cmp_ge_i32 s8, s12
	s_cbranch_scc1 .LBB1_9
	s_load_dwordx2 s[10:11], s[6:7], 0x0
	s_load_dword s13, s[4:5], 0xc
	s_add_i32 s14, s0, -1
	s_cmp_gt_u32 s0, 1
	s_cselect_b64 s[2:3], -1, 0
	v_mbcnt_lo_u32_b32 v2, exec_lo, 0
	s_waitcnt lgkmcnt(0)
	s_add_u32 s4, s10, 4
	v_mbcnt_hi_u32_b32 v2, exec_hi, v2
	v_cndmask_b32_e64 v3, 0, 1, s[2:3]
	s_addc_u32 s5, s11, 0
	v_mov_b32_e32 v0, 0
	v_mov_b32_e32 v1, 1
	v_cmp_ne_u32_e64 s[0:1], 0, v2
	s_bcnt1_i32_b64 s15, exec
	v_cmp_ne_u32_e64 s[2:3], 1, v3
	s_branch .LBB1_3
.LBB1_2:
	s_add_i32 s8, s8, s13
	s_cmp_ge_u32 s8, s12
	s_cbranch_scc1 .LBB1_9
.LBB1_3:
	s_ashr_i32 s9, s8, 31
	s_lshl_b64 s[6:7], s[8:9], 2
	s_add_u32 s6, s10, s6
	s_addc_u32 s7, s11, s7
	global_store_dword v0, v1, s[6:7]
	s_and_b64 s[6:7], s[0:1], exec
	s_waitcnt vmcnt(0)
	buffer_wbinvl1_vol
	s_cbranch_scc1 .LBB1_5
	s_getpc_b64 s[6:7]
	s_add_u32 s6, s6, qd_field_tickets@gotpcrel32@lo+4
	s_addc_u32 s7, s7, qd_field_tickets@gotpcrel32@hi+12
	s_load_dwordx2 s[6:7], s[6:7], 0x0
	v_mov_b32_e32 v3, s15
	s_waitcnt lgkmcnt(0)
	global_atomic_add v3, v0, v3, s[6:7] glc
.LBB1_5:
	s_waitcnt vmcnt(0)
	v_readfirstlane_b32 s6, v3
	v_add_u32_e32 v3, s6, v2
	v_cmp_eq_u32_e32 vcc, s14, v3
	s_cbranch_vccz .LBB1_2
	s_and_b64 vcc, exec, s[2:3]
	buffer_wbinvl1_vol
	s_cbranch_vccnz .LBB1_2
	global_load_dword v3, v0, s[10:11]
	s_mov_b64 s[6:7], s[4:5]
	s_mov_b32 s9, s14
.LBB1_8:
	global_load_dword v4, v0, s[6:7]
	s_add_i32 s9, s9, -1
	s_waitcnt vmcnt(0)
	v_add_u32_e32 v3, v4, v3
	global_store_dword v0, v3, s[6:7]
	s_add_u32 s6, s6, 4
	s_addc_u32 s7, s7, 0
	s_cmp_eq_u32 s9, 0
	s_cbranch_scc0 .LBB1_8
	s_branch .LBB1_2
.LBB1_9:
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel last_block_t1
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 12
		.amdhsa_user_sgpr_count 8
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_flat_scratch_init 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_system_sgpr_private_segment_wavefront_offset 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 5
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 8
		.amdhsa_reserve_vcc 1
		.amdhsa_reserve_flat_scratch 0
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end1:
	.size	last_block_t1, .Lfunc_end1-last_block_t1

	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.type	qd_field_tickets,@object
	.section	.bss,"aw",@nobits
	.globl	qd_field_tickets
	.p2align	6, 0x0
qd_field_tickets:
	.long	0
	.size	qd_field_tickets, 4

	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .name:           a
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .offset:         8
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 12
    .max_flat_workgroup_size: 256
    .name:           last_block_t0
    .private_segment_fixed_size: 0
    .sgpr_count:     13
    .sgpr_spill_count: 0
    .symbol:         last_block_t0.kd
    .uses_dynamic_stack: false
    .vgpr_count:     2
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .name:           a
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .offset:         8
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 12
    .max_flat_workgroup_size: 1
    .name:           last_block_t1
    .private_segment_fixed_size: 0
    .sgpr_count:     20
    .sgpr_spill_count: 0
    .symbol:         last_block_t1.kd
    .uses_dynamic_stack: false
    .vgpr_count:     5
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
