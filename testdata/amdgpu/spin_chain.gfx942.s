	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.globl	spin_chain_t0
	.p2align	8
	.type	spin_chain_t0,@function
spin_chain_t0:
	s_load_dword s5, s[0:1], 0x4
	s_load_dword s6, s[2:3], 0x8
	s_waitcnt lgkmcnt(0)
	s_and_b32 s5, s5, 0xffff
	s_mul_i32 s4, s4, s5
	v_add_u32_e32 v0, s4, v0
	s_max_i32 s6, s6, 0
	v_cmp_gt_i32_e32 vcc, s6, v0
	s_and_saveexec_b64 s[4:5], vcc
	s_cbranch_execz .LBB0_5
	s_load_dwordx2 s[4:5], s[2:3], 0x20
	s_load_dword s7, s[0:1], 0xc
	s_mov_b64 s[0:1], 0
	v_mov_b32_e32 v2, 0
	s_branch .LBB0_3
.LBB0_2:
	s_or_b64 exec, exec, s[2:3]
	v_add_u32_e32 v0, s7, v0
	v_cmp_le_u32_e32 vcc, s6, v0
	s_or_b64 s[0:1], vcc, s[0:1]
	s_andn2_b64 exec, exec, s[0:1]
	s_cbranch_execz .LBB0_5
.LBB0_3:
	v_ashrrev_i32_e32 v1, 31, v0
	s_waitcnt lgkmcnt(0)
	v_lshl_add_u64 v[4:5], v[0:1], 2, s[4:5]
	v_cmp_eq_u32_e32 vcc, 0, v0
	global_store_dword v[4:5], v2, off
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_2
	s_getpc_b64 s[8:9]
	s_add_u32 s8, s8, qd_field_ticket@gotpcrel32@lo+4
	s_addc_u32 s9, s9, qd_field_ticket@gotpcrel32@hi+12
	s_load_dwordx2 s[8:9], s[8:9], 0x0
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v2, s[8:9]
	s_branch .LBB0_2
.LBB0_5:
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel spin_chain_t0
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 44
		.amdhsa_user_sgpr_count 4
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 6
		.amdhsa_next_free_sgpr 10
		.amdhsa_accum_offset 8
		.amdhsa_reserve_vcc 1
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
	.size	spin_chain_t0, .Lfunc_end0-spin_chain_t0

	.globl	spin_chain_t1
	.p2align	8
	.type	spin_chain_t1,@function
spin_chain_t1:
	s_load_dword s5, s[0:1], 0x4
	s_load_dword s6, s[2:3], 0x8
	s_waitcnt lgkmcnt(0)
	s_and_b32 s5, s5, 0xffff
	s_mul_i32 s16, s4, s5
	s_max_i32 s17, s6, 0
	s_cmp_ge_i32 s16, s17
	s_mov_b32 s5, 0
	s_cbranch_scc1 .LBB1_9
	s_load_dwordx2 s[6:7], s[2:3], 0x0
	s_load_dwordx2 s[8:9], s[2:3], 0x10
	s_load_dwordx2 s[10:11], s[2:3], 0x20
	s_load_dword s18, s[0:1], 0xc
	v_mbcnt_lo_u32_b32 v0, exec_lo, 0
	v_mbcnt_hi_u32_b32 v0, exec_hi, v0
	v_cmp_ne_u32_e64 s[0:1], 0, v0
	s_bcnt1_i32_b64 s19, exec
	v_mov_b32_e32 v1, 0
	v_mov_b32_e32 v2, 1
	s_branch .LBB1_3
.LBB1_2:
	s_add_u32 s12, s8, s2
	s_addc_u32 s13, s9, s3
	s_add_u32 s2, s10, s2
	s_addc_u32 s3, s11, s3
	s_waitcnt vmcnt(0)
	global_store_dword v1, v3, s[12:13]
	buffer_wbl2 sc1
	s_waitcnt vmcnt(0)
	buffer_inv sc1
	global_atomic_swap v1, v2, s[2:3]
	s_add_i32 s16, s16, s18
	s_cmp_ge_u32 s16, s17
	s_cbranch_scc1 .LBB1_9
.LBB1_3:
	s_and_b64 s[2:3], s[0:1], exec
	v_readfirstlane_b32 s2, v0
	s_cbranch_scc1 .LBB1_5
	s_getpc_b64 s[12:13]
	s_add_u32 s12, s12, qd_field_ticket@gotpcrel32@lo+4
	s_addc_u32 s13, s13, qd_field_ticket@gotpcrel32@hi+12
	s_load_dwordx2 s[12:13], s[12:13], 0x0
	v_mov_b32_e32 v3, s19
	s_waitcnt lgkmcnt(0)
	global_atomic_add v3, v1, v3, s[12:13] sc0
.LBB1_5:
	s_waitcnt vmcnt(0)
	v_readfirstlane_b32 s3, v3
	s_add_i32 s12, s3, s2
	s_ashr_i32 s13, s12, 31
	s_lshl_b64 s[2:3], s[12:13], 2
	s_waitcnt lgkmcnt(0)
	s_add_u32 s14, s6, s2
	s_addc_u32 s15, s7, s3
	global_load_dword v3, v1, s[14:15]
	s_cmp_lt_i32 s12, 1
	s_cbranch_scc1 .LBB1_2
	s_add_i32 s4, s12, -1
	s_lshl_b64 s[12:13], s[4:5], 2
	s_add_u32 s14, s10, s12
	s_addc_u32 s15, s11, s13
.LBB1_7:
	global_load_dword v4, v1, s[14:15] sc0 sc1
	s_waitcnt vmcnt(0)
	v_cmp_eq_u32_e32 vcc, 0, v4
	s_cbranch_vccnz .LBB1_7
	s_add_u32 s12, s8, s12
	s_addc_u32 s13, s9, s13
	buffer_wbl2 sc1
	buffer_inv sc1
	global_load_dword v4, v1, s[12:13] sc0 sc1
	s_waitcnt vmcnt(0)
	v_add_u32_e32 v3, v4, v3
	s_branch .LBB1_2
.LBB1_9:
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel spin_chain_t1
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 44
		.amdhsa_user_sgpr_count 4
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 5
		.amdhsa_next_free_sgpr 20
		.amdhsa_accum_offset 8
		.amdhsa_reserve_vcc 1
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
	.size	spin_chain_t1, .Lfunc_end1-spin_chain_t1

	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.type	qd_field_ticket,@object
	.section	.bss,"aw",@nobits
	.globl	qd_field_ticket
	.p2align	6, 0x0
qd_field_ticket:
	.long	0
	.size	qd_field_ticket, 4

	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .name:           x
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .offset:         8
        .size:           4
        .value_kind:     by_value
      - .address_space:  global
        .name:           out
        .offset:         16
        .size:           8
        .value_kind:     global_buffer
      - .offset:         24
        .size:           4
        .value_kind:     by_value
      - .address_space:  global
        .name:           flags
        .offset:         32
        .size:           8
        .value_kind:     global_buffer
      - .offset:         40
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 44
    .max_flat_workgroup_size: 256
    .name:           spin_chain_t0
    .private_segment_fixed_size: 0
    .sgpr_count:     16
    .sgpr_spill_count: 0
    .symbol:         spin_chain_t0.kd
    .uses_dynamic_stack: false
    .vgpr_count:     6
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .name:           x
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .offset:         8
        .size:           4
        .value_kind:     by_value
      - .address_space:  global
        .name:           out
        .offset:         16
        .size:           8
        .value_kind:     global_buffer
      - .offset:         24
        .size:           4
        .value_kind:     by_value
      - .address_space:  global
        .name:           flags
        .offset:         32
        .size:           8
        .value_kind:     global_buffer
      - .offset:         40
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 44
    .max_flat_workgroup_size: 1
    .name:           spin_chain_t1
    .private_segment_fixed_size: 0
    .sgpr_count:     26
    .sgpr_spill_count: 0
    .symbol:         spin_chain_t1.kd
    .uses_dynamic_stack: false
    .vgpr_count:     5
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
