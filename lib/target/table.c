/* The built-in GPU table. Every number comes from a public source named beside it:
 *  [DS]   the product's NVIDIA datasheet (named per entry),
 *  [WP]   the architecture whitepaper (Turing, Ampere GA100/GA102, Ada, Hopper),
 *  [PG]   CUDA C++ Programming Guide, "Compute Capabilities", table "Technical
 *         Specifications per Compute Capability" (threads, blocks, registers, shared
 *         memory per SM / per block, the 48 KiB static limit),
 *  [ATTR] CUDA driver API, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: 1 KiB
 *         reserved by the system per block on compute capability 8.0 and later, 0 before,
 *  [OCC]  CUDA occupancy calculator: registers are allocated per warp in units of 256.
 * Peak FP32 = SMs x 128 FP32 lanes (64 on Turing and GA100) x 2 flops x boost clock;
 * tensor figures are dense (no sparsity) FP16 inputs with FP32 accumulation.
 * docs/targets.md lists the same values in a table. */
#include "target_table.h"

#define KIB 1024
#define MIB (1024 * 1024)
#define GIB (1024LL * 1024 * 1024)

/* Limits shared by every GPU in the table ([PG]). */
#define COMMON_LIMITS                                                                          \
  .smem_per_block_static = 48 * KIB, .regs_per_sm = 64 * KIB, .regs_per_block = 64 * KIB,     \
  .max_regs_per_thread = 255, .reg_alloc_unit = 256, .max_threads_per_block = 1024,           \
  .warp_size = 32, .smem_banks = 32, .l1_line_bytes = 128, .dram_sector_bytes = 32

const PrunerTargetEntry prunerTargetTable[] = {
    /* NVIDIA T4 datasheet (2019): 40 SMs (2560 CUDA cores), 1590 MHz boost, 8.1 TFLOPS
     * FP32, 65 TFLOPS mixed precision, 320 GB/s GDDR6, 16 GB; L2 4 MB [WP Turing].
     * CC 7.5 [PG]: 64 KiB shared per SM and per block, 1024 threads and 16 blocks per SM. */
    {{.kind = PRUNER_TARGET_GPU, .name = "t4", .arch = "sm_75", .device = "NVIDIA Tesla T4",
      .compute_capability = 75, .sm_count = 40, .boost_clock_mhz = 1590,
      .peak_fp32_gflops = 8141, .peak_tensor_gflops = 65000, .dram_gbps = 320,
      .l2_bytes = 4 * MIB, .dram_bytes = 16 * GIB, .smem_per_sm = 64 * KIB,
      .smem_per_block = 64 * KIB, .smem_reserved_per_block = 0, .max_threads_per_sm = 1024,
      .max_blocks_per_sm = 16, COMMON_LIMITS},
     {"tesla t4", "t4"}},
    /* NVIDIA A100 Tensor Core GPU datasheet (SXM 40GB): 108 SMs, 1410 MHz, 19.5 TFLOPS
     * FP32, 312 TFLOPS FP16 tensor (dense), 1,555 GB/s HBM2; 40 MB L2 [WP GA100].
     * CC 8.0 [PG]: 164 KiB shared per SM, 163 KiB per block (opt-in), 2048 threads and
     * 32 blocks per SM. */
    {{.kind = PRUNER_TARGET_GPU, .name = "a100-40gb", .arch = "sm_80",
      .device = "NVIDIA A100-SXM4-40GB", .compute_capability = 80, .sm_count = 108,
      .boost_clock_mhz = 1410, .peak_fp32_gflops = 19490, .peak_tensor_gflops = 312000,
      .dram_gbps = 1555, .l2_bytes = 40 * MIB, .dram_bytes = 40 * GIB,
      .smem_per_sm = 164 * KIB, .smem_per_block = 163 * KIB, .smem_reserved_per_block = KIB,
      .max_threads_per_sm = 2048, .max_blocks_per_sm = 32, COMMON_LIMITS},
     {"a100", "a100 40gb", "nvidia a100 40gb", "a100-sxm4-40gb"}},
    /* Same datasheet, SXM 80GB: 2,039 GB/s HBM2e, 80 GB; otherwise as the 40 GB part. */
    {{.kind = PRUNER_TARGET_GPU, .name = "a100-80gb", .arch = "sm_80",
      .device = "NVIDIA A100-SXM4-80GB", .compute_capability = 80, .sm_count = 108,
      .boost_clock_mhz = 1410, .peak_fp32_gflops = 19490, .peak_tensor_gflops = 312000,
      .dram_gbps = 2039, .l2_bytes = 40 * MIB, .dram_bytes = 80 * GIB,
      .smem_per_sm = 164 * KIB, .smem_per_block = 163 * KIB, .smem_reserved_per_block = KIB,
      .max_threads_per_sm = 2048, .max_blocks_per_sm = 32, COMMON_LIMITS},
     {"a100 80gb", "nvidia a100 80gb", "a100-sxm4-80gb"}},
    /* NVIDIA A10 datasheet: 72 SMs (9216 CUDA cores), 1695 MHz boost, 31.2 TFLOPS FP32,
     * 125 TFLOPS FP16 tensor (dense), 600 GB/s GDDR6, 24 GB; 6 MB L2 [WP GA102].
     * CC 8.6 [PG]: 100 KiB shared per SM, 99 KiB per block, 1536 threads, 16 blocks. */
    {{.kind = PRUNER_TARGET_GPU, .name = "a10", .arch = "sm_86", .device = "NVIDIA A10",
      .compute_capability = 86, .sm_count = 72, .boost_clock_mhz = 1695,
      .peak_fp32_gflops = 31240, .peak_tensor_gflops = 125000, .dram_gbps = 600,
      .l2_bytes = 6 * MIB, .dram_bytes = 24 * GIB, .smem_per_sm = 100 * KIB,
      .smem_per_block = 99 * KIB, .smem_reserved_per_block = KIB, .max_threads_per_sm = 1536,
      .max_blocks_per_sm = 16, COMMON_LIMITS},
     {"a10"}},
    /* NVIDIA Ada GPU architecture whitepaper, GeForce RTX 4090: 128 SMs, 2520 MHz boost,
     * 82.6 TFLOPS FP32, 165.2 TFLOPS FP16 tensor with FP32 accumulate (dense),
     * 1,008 GB/s GDDR6X, 24 GB, 72 MB L2. CC 8.9 [PG]: 100 KiB per SM, 99 KiB per block,
     * 1536 threads and 24 blocks per SM. */
    {{.kind = PRUNER_TARGET_GPU, .name = "rtx4090", .arch = "sm_89",
      .device = "NVIDIA GeForce RTX 4090", .compute_capability = 89, .sm_count = 128,
      .boost_clock_mhz = 2520, .peak_fp32_gflops = 82580, .peak_tensor_gflops = 165200,
      .dram_gbps = 1008, .l2_bytes = 72 * MIB, .dram_bytes = 24 * GIB,
      .smem_per_sm = 100 * KIB, .smem_per_block = 99 * KIB, .smem_reserved_per_block = KIB,
      .max_threads_per_sm = 1536, .max_blocks_per_sm = 24, COMMON_LIMITS},
     {"rtx 4090", "geforce rtx 4090", "4090"}},
    /* NVIDIA L40S datasheet: 142 SMs (18176 CUDA cores), 2520 MHz boost, 91.6 TFLOPS FP32,
     * 362.05 TFLOPS FP16 tensor (dense; 733 with sparsity), 864 GB/s GDDR6, 48 GB;
     * 96 MB L2 [WP Ada]. CC 8.9 [PG] as the RTX 4090. */
    {{.kind = PRUNER_TARGET_GPU, .name = "l40s", .arch = "sm_89", .device = "NVIDIA L40S",
      .compute_capability = 89, .sm_count = 142, .boost_clock_mhz = 2520,
      .peak_fp32_gflops = 91610, .peak_tensor_gflops = 362050, .dram_gbps = 864,
      .l2_bytes = 96 * MIB, .dram_bytes = 48 * GIB, .smem_per_sm = 100 * KIB,
      .smem_per_block = 99 * KIB, .smem_reserved_per_block = KIB, .max_threads_per_sm = 1536,
      .max_blocks_per_sm = 24, COMMON_LIMITS},
     {"l40s"}},
    /* NVIDIA H100 Tensor Core GPU datasheet (SXM5): 132 SMs, 1980 MHz boost, 67 TFLOPS
     * FP32, 989.4 TFLOPS FP16 tensor (dense; 1,979 with sparsity), 3.35 TB/s HBM3, 80 GB;
     * 50 MB L2 [WP Hopper]. CC 9.0 [PG]: 228 KiB shared per SM, 227 KiB per block,
     * 2048 threads and 32 blocks per SM. */
    {{.kind = PRUNER_TARGET_GPU, .name = "h100-sxm", .arch = "sm_90",
      .device = "NVIDIA H100 80GB HBM3", .compute_capability = 90, .sm_count = 132,
      .boost_clock_mhz = 1980, .peak_fp32_gflops = 66900, .peak_tensor_gflops = 989400,
      .dram_gbps = 3350, .l2_bytes = 50 * MIB, .dram_bytes = 80 * GIB,
      .smem_per_sm = 228 * KIB, .smem_per_block = 227 * KIB, .smem_reserved_per_block = KIB,
      .max_threads_per_sm = 2048, .max_blocks_per_sm = 32, COMMON_LIMITS},
     {"h100", "h100 sxm", "h100 sxm5", "nvidia h100 sxm5 80gb"}},
    /* NVIDIA H200 Tensor Core GPU datasheet (SXM): same GH100 compute as the H100 SXM
     * (132 SMs, 67 TFLOPS FP32, 989 TFLOPS FP16 tensor dense), 4.8 TB/s HBM3e, 141 GB.
     * L2: 60 MiB, what the driver reports on the H200 this project measured on
     * (docs/targets.md; about 60 MB as PyTorch's device properties report it); NVIDIA's
     * datasheet does not state it. CC 9.0 [PG] as the H100. */
    {{.kind = PRUNER_TARGET_GPU, .name = "h200", .arch = "sm_90", .device = "NVIDIA H200",
      .compute_capability = 90, .sm_count = 132, .boost_clock_mhz = 1980,
      .peak_fp32_gflops = 66900, .peak_tensor_gflops = 989400, .dram_gbps = 4800,
      .l2_bytes = 60 * MIB, .dram_bytes = 141LL * 1000 * 1000 * 1000,
      .smem_per_sm = 228 * KIB, .smem_per_block = 227 * KIB, .smem_reserved_per_block = KIB,
      .max_threads_per_sm = 2048, .max_blocks_per_sm = 32, COMMON_LIMITS},
     {"h200 sxm", "nvidia h200 sxm", "nvidia h200 141gb"}},
};

const size_t prunerTargetTableCount = sizeof(prunerTargetTable) / sizeof(prunerTargetTable[0]);

/* Which entry an `sm_XX` lookup picks (docs/targets.md): the part we expect users of
 * that architecture to have, and for sm_90 the H200 we measure on. */
const PrunerTargetArchDefault prunerTargetArchDefaults[] = {
    {"sm_75", "t4"}, {"sm_80", "a100-40gb"}, {"sm_86", "a10"},
    {"sm_89", "l40s"}, {"sm_90", "h200"},
};
const size_t prunerTargetArchDefaultCount =
    sizeof(prunerTargetArchDefaults) / sizeof(prunerTargetArchDefaults[0]);
