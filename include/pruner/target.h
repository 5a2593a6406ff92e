/* pruner/target.h: descriptions of the machines a kernel is tuned for.
 *
 * A target is a plain description of one device: how many SMs it has, how fast they
 * compute, how much memory bandwidth and on-chip storage they have, and the hardware
 * limits a kernel launch must respect. The draft model and the space's validity rules
 * read nothing else about the hardware, so a new GPU (or the host CPU) is one more table
 * entry. Entries come from public datasheets (sources are cited in lib/target/table.c);
 * on a machine with a GPU the runner reads the real values from the driver and
 * prunerTargetOverride() lets them replace the table's. */
#ifndef PRUNER_TARGET_H
#define PRUNER_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum PrunerTargetKind {
  PRUNER_TARGET_GPU = 0,
  PRUNER_TARGET_HOST = 1,
  PRUNER_TARGET_IREE_CPU = 2, /* IREE llvm-cpu on this machine (pruner/backend/iree.h) */
  PRUNER_TARGET_IREE_CUDA = 3, /* IREE's CUDA backend for a GPU of the table: the GPU's
                                  description, IREE's kernels ("iree-cuda:<gpu>") */
} PrunerTargetKind;

typedef struct PrunerTargetDesc {
  PrunerTargetKind kind;
  char name[32];          /* table key: "h100-sxm", "a100-40gb", ...  */
  char arch[16];          /* "sm_90"; "host" for the CPU              */
  char device[64];        /* marketing name: "NVIDIA H100 SXM5 80GB"  */
  int compute_capability; /* 90 for sm_90                             */
  int sm_count;           /* SMs; on the host, cores (prunerHostTargetCores) */
  double boost_clock_mhz;
  double peak_fp32_gflops;   /* non-tensor FP32 FMA rate (2 flops/FMA) */
  double peak_tensor_gflops; /* dense FP16 in, FP32 accumulate         */
  double dram_gbps;          /* GB/s = 1e9 bytes/s                     */
  int64_t l2_bytes;
  int64_t dram_bytes;
  int smem_per_sm;              /* bytes of shared memory an SM can give */
  int smem_per_block;           /* max bytes per block (opt-in)          */
  int smem_per_block_static;    /* static limit without opt-in (48 KiB)  */
  int smem_reserved_per_block;  /* driver reservation per block (1 KiB)  */
  int regs_per_sm;              /* 32-bit registers                      */
  int regs_per_block;
  int max_regs_per_thread;
  int reg_alloc_unit;           /* registers are allocated per warp in units of this */
  int max_threads_per_block;
  int max_threads_per_sm;
  int max_blocks_per_sm;
  int warp_size;                /* 32; on the host, f32 SIMD lanes (prunerHostTargetSimdLanes) */
  int smem_banks;               /* 32 banks of 4 bytes */
  int l1_line_bytes;            /* 128 */
  int dram_sector_bytes;        /* 32  */
  /* The code-generator version whose kernels the draft models (docs/records.md,
   * "Code-generator version"): 0, this build's; a dataset's records set the version they
   * timed (prunerRecordsKernelVersion), so that the draft of a study describes the kernels
   * that were measured. Only the host draft reads it, for host targets (2-D convs
   * before version 4); iree-cpu keeps the model it had. */
  int codegen_version;
} PrunerTargetDesc;

/* Number of entries in the built-in table. */
size_t prunerTargetTableSize(void);

/* The i-th built-in entry (i < prunerTargetTableSize()); a pointer into static storage. */
const PrunerTargetDesc *prunerTargetTableEntry(size_t i);

/* Looks a target up by table name ("h200"), by architecture ("sm_90", which picks the
 * arch's default device, see docs/targets.md) or by device name; "host", "host:<isa>",
 * "iree-cpu", and "iree-cuda:<gpu>" (any GPU name above: the GPU's description with kind
 * PRUNER_TARGET_IREE_CUDA). On failure the status lists every accepted name. */
PrunerStatus prunerTargetLookup(const char *name, PrunerTargetDesc *out);

/* The accepted values of a `target=` option, comma separated, written into buf. */
void prunerTargetListNames(char *buf, size_t size);

/* Replaces the fields of `desc` with values read from a real device; fields that are
 * zero in `measured` are left as they are. */
void prunerTargetOverride(PrunerTargetDesc *desc, const PrunerTargetDesc *measured);

/* Writes a stable key naming the target for records ("sm_90:h200:132sm"; IREE's CUDA
 * backend on that GPU "iree-cuda:sm_90:h200:132sm"). */
void prunerTargetKey(const PrunerTargetDesc *desc, char *buf, size_t size);

/* The version of the code generator whose kernels records of `desc` time today
 * (PRUNER_GPU_CODEGEN_VERSION, _HOST_, _IREE_; the backend of its kind stamps the same
 * on its records as PrunerBackend.codegen_version), for tools that read records without
 * a backend (pruner-eval --train; docs/records.md, "Code-generator version"). */
int prunerTargetCodegenVersion(const PrunerTargetDesc *desc);
/* The version records of `w` on `desc` must carry to time today's kernel: the backend's
 * PrunerBackend.codegenVersionOf (host: prunerHostCodegenVersionOf), else
 * prunerTargetCodegenVersion. */
struct PrunerWorkload;
int prunerTargetCodegenVersionOf(const PrunerTargetDesc *desc, const struct PrunerWorkload *w);

/* The family a shipped verifier prior is named by (docs/transfer.md): "host-avx512",
 * "host-avx2", "host-sse" (the host's vector ISA), "iree-cpu-<isa>", "gpu-<arch>",
 * "iree-cuda-<arch>".
 * Writes "" when size is too small. */
void prunerTargetFamily(const PrunerTargetDesc *target, char *buf, size_t size);

/* What a host dataset's records say of the machine they were measured on (docs/records.md,
 * the target's "caches"; the records' clock): fields are 0 where the records do not carry
 * them. */
typedef struct PrunerMeasuredMachine {
  int64_t l1d_bytes; /* per core */
  int64_t l2_bytes;  /* per core */
  int64_t l3_bytes;  /* total    */
  double clock_mhz;
} PrunerMeasuredMachine;

/* The kind of target a key of prunerTargetKey names, from its prefix alone: "host:",
 * "iree-cpu:", "iree-cuda:", else a GPU ("arch:name:NNsm"). No lookup: the key need not
 * name a target of this build's table. */
PrunerTargetKind prunerTargetKeyKind(const char *key);

/* The description of the machine a records key names, so that records measured elsewhere
 * can be studied here ("dataset target"): a GPU key "arch:name:NNsm" is the table entry
 * with NN SMs; a host key "host:<cpu>-<N>c-<isa>" is this machine's host description with
 * N cores and that ISA, and the caches and clock of `measured` where it gives them (NULL
 * or 0: this machine's; docs/quality.md); an "iree-cuda:" key is the GPU key after the
 * prefix, of kind PRUNER_TARGET_IREE_CUDA. The result's key is `key`. `what` (may be
 * NULL) gets one line saying what was assumed and what came from where. Fails, naming
 * the key, when it names no known target. prunerRecordsDatasetTarget (records.h) finds
 * `measured` in a records file. */
PrunerStatus prunerTargetFromKey(const char *key, const PrunerMeasuredMachine *measured,
                                 PrunerTargetDesc *out, char *what, size_t what_size);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_TARGET_H */
