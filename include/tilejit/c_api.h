/* tilejit's C API: compile and launch kernels on raw pointers and CUDA streams, from C or
 * from Python through ctypes (pass tensor.data_ptr() and torch.cuda.current_stream().cuda_stream).
 *
 * Every function returns 0 on success and non-zero on failure; tilejit_last_error() then
 * returns the message (per thread, valid until the next call on that thread). */
#ifndef TILEJIT_C_API_H
#define TILEJIT_C_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types; the values are tilejit::DType's. */
enum tilejit_dtype {
  TILEJIT_I1 = 0,
  TILEJIT_I32 = 1,
  TILEJIT_I64 = 2,
  TILEJIT_F16 = 3,
  TILEJIT_BF16 = 4,
  TILEJIT_F32 = 5,
  TILEJIT_F64 = 6
};

/* One launch argument. kind: 0 pointer (address, dtype), 1 integer (value), 2 float (fvalue). */
typedef struct tilejit_arg {
  int kind;
  int dtype;
  uint64_t address;
  int64_t value;
  double fvalue;
} tilejit_arg;

/* A compiled specialization, owned by tilejit (never freed by the caller). */
typedef struct tilejit_compiled tilejit_compiled;

const char* tilejit_last_error(void);
/* 1 when a CUDA device is usable, else 0 (tilejit_last_error() says why). */
int tilejit_has_gpu(void);
/* Enqueues on `stream` (a CUstream; NULL the legacy default) what empties L2 before each of
   tilejit's timed runs (tilejit::flush_l2): lines held with an evict_last hint dropped, then a
   256 MiB buffer overwritten. For timing loops of one's own. 0 on success. */
int tilejit_flush_l2(void* stream);
/* Waits for the background NVRTC builds of TILEJIT_CODEGEN=tiered queued so far (none otherwise). */
void tilejit_wait_for_background_compiles(void);

/* Compiles a kernel of tilejit's library (names: tilejit_kernel_names) for these arguments. */
int tilejit_compile(const char* kernel, const tilejit_arg* args, int n_args, int num_warps, int num_stages,
                    tilejit_compiled** out);
/* How tilejit_compile_with compiles (tilejit::CompileOptions). */
typedef struct tilejit_compile_options {
  int num_warps;          /* 1 to 32, a power of two */
  int num_stages;         /* loads in flight in pipelined loops, 1 to 8 */
  int min_blocks_per_sm;  /* CUDA: blocks each SM should hold, ptxas capping registers to fit; 0: no bound */
  int programs_per_block; /* CUDA: programs sharing a thread block (tilejit::CompileOptions); 0 or 1: one */
} tilejit_compile_options;
/* tilejit_compile with every option; part of the kernel's cache key. */
int tilejit_compile_with(const char* kernel, const tilejit_arg* args, int n_args,
                         const tilejit_compile_options* options, tilejit_compiled** out);
/* Newline-separated names of the kernels tilejit_compile knows. */
const char* tilejit_kernel_names(void);
/* Launches a compiled kernel on a grid with the same kind of arguments it was compiled for. */
int tilejit_launch(const tilejit_compiled* kernel, uint64_t grid_x, uint64_t grid_y, uint64_t grid_z,
                   const tilejit_arg* args, int n_args, void* stream);
/* The grid of a persistent launch over `work_items` (rows): as many programs as the device holds
 * at once, at most `work_items` (tilejit::persistent_grid). Needs a GPU. */
int tilejit_persistent_grid(const tilejit_compiled* kernel, uint64_t work_items, uint64_t* grid);
/* A stage of a compiled kernel ("ir", "ir.lowered", "cuda", "ptx"); valid while the process runs. */
const char* tilejit_stage(const tilejit_compiled* kernel, const char* stage);

/* Row-wise softmax with the seed's persistent kernel (rows held in registers, cols <= 16384). */
int tilejit_softmax_seed(void* out, const void* in, int64_t rows, int64_t cols, int64_t in_row_stride,
                         int64_t out_row_stride, int dtype, void* stream);

/* Row-wise softmax for any shape (tilejit::ops::softmax): the strategy and launch configuration
 * are picked per shape and device (autotuned file, else built-in table). in_dtype and out_dtype:
 * TILEJIT_F32, TILEJIT_F16 or TILEJIT_BF16 (may differ); arithmetic in f32. rows or cols == 0
 * launches nothing. Device pointers; asynchronous on `stream`. */
int tilejit_softmax(void* out, const void* in, int64_t rows, int64_t cols, int64_t in_row_stride,
                    int64_t out_row_stride, int in_dtype, int out_dtype, void* stream);
/* The same for log_softmax: x - max - log(sum(exp(x - max))). */
int tilejit_log_softmax(void* out, const void* in, int64_t rows, int64_t cols, int64_t in_row_stride,
                        int64_t out_row_stride, int in_dtype, int out_dtype, void* stream);

/* Where tilejit_softmax_with runs. */
enum tilejit_backend {
  TILEJIT_BACKEND_CUDA = 0, /* device pointers; asynchronous on the stream */
  TILEJIT_BACKEND_CPU = 1   /* host pointers (LLVM ORC JIT); done when the call returns; no stream */
};
/* How tilejit_softmax_with runs (tilejit::ops::SoftmaxOptions); all zero: softmax on CUDA. */
typedef struct tilejit_softmax_options {
  int backend;     /* tilejit_backend */
  int log;         /* 1: log_softmax */
  int cpu_threads; /* CPU backend: at most this many threads; 0: one per core */
  /* A configuration of the op's own instead of its choice, in the words it describes plans with
     ("split_row BLOCK=4096 warps=4 stages=2 splits=8"; tilejit::ops::parse_config); NULL or "":
     the op's choice. A configuration that cannot run the shape is an error, named. */
  const char* config;
} tilejit_softmax_options;
/* tilejit_softmax or tilejit_log_softmax on either backend; a null `options` is all zero. */
int tilejit_softmax_with(void* out, const void* in, int64_t rows, int64_t cols, int64_t in_row_stride,
                         int64_t out_row_stride, int in_dtype, int out_dtype, void* stream,
                         const tilejit_softmax_options* options);

/* Where a softmax plan's configuration came from (tilejit::ops::ConfigSource): options.config, the
   user's tuning file, the tuned table shipped for this device (or for one of the same compute
   capability and SM count), or the built-in table. */
enum tilejit_config_source {
  TILEJIT_CONFIG_FORCED = 0,
  TILEJIT_CONFIG_AUTOTUNE = 1,
  TILEJIT_CONFIG_DEVICE_TABLE = 2,
  TILEJIT_CONFIG_TABLE = 3
};
/* The configuration tilejit_softmax_with would run a rows x cols problem with, in the words
   options.config takes ("row_in_registers BLOCK=1024 warps=4 stages=2"), and where it came from
   (tilejit_config_source) in *source unless NULL; NULL on error. Valid until the next call on this
   thread. Needs no GPU: without one, CUDA plans are made for an H200-sized device. */
const char* tilejit_softmax_plan(int64_t rows, int64_t cols, int in_dtype, int out_dtype,
                                 const tilejit_softmax_options* options, int* source);
/* Whose shipped table held the band of that plan when its source is TILEJIT_CONFIG_DEVICE_TABLE: the
   device's own ("NVIDIA H200") or one of the same compute capability and SM count (an H100 SXM
   takes most bands from the H200's); "" for every other source. NULL on error. Valid until the
   next call on this thread. */
const char* tilejit_softmax_plan_table(int64_t rows, int64_t cols, int in_dtype, int out_dtype,
                                       const tilejit_softmax_options* options);
/* Compiles, without launching, the kernels tilejit_softmax_with would launch with these arguments
   (one, or split_row's two; the pointers' alignment is part of their specialization), writes up to
   `capacity` handles into `kernels` and how many it compiled into *count. Their stages read with
   tilejit_stage. Without a GPU, CUDA kernels are compiled for sm_90. */
int tilejit_softmax_kernels(const void* out, const void* in, int64_t rows, int64_t cols, int64_t in_row_stride,
                            int64_t out_row_stride, int in_dtype, int out_dtype, const tilejit_softmax_options* options,
                            tilejit_compiled** kernels, int capacity, int* count);

#ifdef __cplusplus
}
#endif

#endif /* TILEJIT_C_API_H */
