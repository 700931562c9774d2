/*
 * The driver of Kiln's generated pointwise kernels: ONNX Runtime custom ops (OrtCustomOp, C API 17) whose
 * loops src/exec/ort/pointwise-codegen.ts writes. A generated library includes this file, defines its
 * kernels (a table of kiln_kernel) and exports kiln_register_pointwise, which passes them to kiln_register.
 *
 * ONNX Runtime's headers are not needed: the OrtApi is a table of function pointers that only grows at
 * the end, so each function used here has a fixed slot, counted from onnxruntime_c_api.h (as
 * src/exec/ort/ort-api.ts does), and OrtCustomOp's layout is fixed up to the version it declares.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The vector form of libm's erff (glibc's libmvec): loops that call it vectorize through it. */
float erff(float) __attribute__((simd("notinbranch")));

typedef struct OrtStatus OrtStatus;
typedef void *const *kiln_api; /* the OrtApi, as its slots */

typedef struct kiln_api_base {
  kiln_api (*GetApi)(uint32_t version);
  const char *(*GetVersionString)(void);
} kiln_api_base;

/* The OrtApi version whose functions and OrtCustomOp fields are used (ONNX Runtime 1.17). */
#define KILN_ORT_API 17

enum {
  SLOT_CreateCustomOpDomain = 26,
  SLOT_CustomOpDomain_Add = 27,
  SLOT_AddCustomOpDomain = 28,
  SLOT_GetTensorMutableData = 51,
  SLOT_CreateTensorTypeAndShapeInfo = 57,
  SLOT_SetTensorElementType = 58,
  SLOT_SetDimensions = 59,
  SLOT_KernelContext_GetInput = 90,
  SLOT_KernelContext_GetOutput = 91,
  SLOT_ReleaseTensorTypeAndShapeInfo = 99,
  SLOT_ShapeInferContext_SetOutputTypeShape = 270,
  SLOT_KernelContext_ParallelFor = 274,
};

#define KILN_CALL(api, slot, type) ((type)(api)[slot])

typedef struct OrtCustomOp {
  uint32_t version;
  void *(*CreateKernel)(const struct OrtCustomOp *, kiln_api, const void *info);
  const char *(*GetName)(const struct OrtCustomOp *);
  const char *(*GetExecutionProviderType)(const struct OrtCustomOp *);
  int (*GetInputType)(const struct OrtCustomOp *, size_t);
  size_t (*GetInputTypeCount)(const struct OrtCustomOp *);
  int (*GetOutputType)(const struct OrtCustomOp *, size_t);
  size_t (*GetOutputTypeCount)(const struct OrtCustomOp *);
  void (*KernelCompute)(void *kernel, void *context);
  void (*KernelDestroy)(void *kernel);
  int (*GetInputCharacteristic)(const struct OrtCustomOp *, size_t);
  int (*GetOutputCharacteristic)(const struct OrtCustomOp *, size_t);
  int (*GetInputMemoryType)(const struct OrtCustomOp *, size_t);
  int (*GetVariadicInputMinArity)(const struct OrtCustomOp *);
  int (*GetVariadicInputHomogeneity)(const struct OrtCustomOp *);
  int (*GetVariadicOutputMinArity)(const struct OrtCustomOp *);
  int (*GetVariadicOutputHomogeneity)(const struct OrtCustomOp *);
  OrtStatus *(*CreateKernelV2)(const struct OrtCustomOp *, kiln_api, const void *info, void **kernel);
  OrtStatus *(*KernelComputeV2)(void *kernel, void *context);
  OrtStatus *(*InferOutputShapeFn)(const struct OrtCustomOp *, void *shape_context);
  int (*GetStartVersion)(const struct OrtCustomOp *);
  int (*GetEndVersion)(const struct OrtCustomOp *);
} OrtCustomOp;

#define KILN_MAX_ARGS 32

/*
 * One kernel. Output j has rank `ranks[j]` and shape `dims[j]`; the loop `body` covers units [begin, end)
 * of `unit` elements each (a row of the last dimension, or a fixed run of elements).
 */
typedef struct kiln_kernel {
  const char *name;
  int inputs, outputs;
  int types[KILN_MAX_ARGS]; /* ONNX element types: inputs, then outputs */
  int ranks[KILN_MAX_ARGS];
  int64_t dims[KILN_MAX_ARGS][8];
  int64_t units, unit;
  void (*body)(void *const *args, int64_t begin, int64_t end);
} kiln_kernel;

/*
 * e^x within 1.4 ulp (measured against double precision over [-100, 100]), as a plain function the
 * compiler inlines and vectorizes: 2^k · e^r with k = round(x / ln 2), r = x − k·ln 2 in two parts
 * (Cody–Waite), e^r by Cephes' degree-6 polynomial. About 3× as fast in a loop as libmvec's expf, which
 * is a call per vector. Overflow gives +inf, underflow 0 (the kernels' threads flush denormals anyway),
 * NaN stays NaN.
 */
static inline float kiln_exp(float x) {
  const float hi = 88.72283935546875f, lo = -87.33654022216797f;
  float c = x > hi ? hi : x;
  c = c < lo ? lo : c;
  const float k = (c * 1.44269502162933349609f + 12582912.0f) - 12582912.0f; /* round to nearest */
  float r = c - k * 0.693359375f;
  r = r + k * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  /* 2^k as exponent bits; for k = 128 (x near the top) as 2^127 · 2, which the bits cannot hold. */
  const int32_t up = k > 0.0f;
  const int32_t bits = ((int32_t)k + 127 - up) << 23;
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  float y = p * scale * (up ? 2.0f : 1.0f);
  y = x > hi ? INFINITY : y;
  return x < lo ? 0.0f : y;
}

/* 16 floats, and 16 int32 (a comparison's result): GCC's vector extensions, split by the compiler where vectors are narrower. */
typedef float kiln_floats __attribute__((vector_size(64)));
typedef int32_t kiln_ints __attribute__((vector_size(64)));

/*
 * Softmax over rows of n floats, with the loss's and the accuracy's statistics, reading the logits from
 * memory once (each row again from cache): args are logits [rows, n], then probabilities [rows, n],
 * log-sum-exp [rows] and max [rows]. A row holding a NaN has a NaN max (as the reference's reduce_max),
 * log-sum-exp and probabilities. The max and the sum run in 16 lanes: vector code without letting the
 * compiler reassociate floats elsewhere.
 */
static inline void kiln_softmax_rows(void *const *args, int64_t begin, int64_t end, int64_t n) {
  enum { L = 16 };
  const float *x = (const float *)args[0];
  float *probs = (float *)args[1], *lse = (float *)args[2], *max = (float *)args[3];
  const int64_t whole = n - n % L;
  for (int64_t r = begin; r < end; r++) {
    const float *xr = x + r * n;
    float *pr = probs + r * n;
    kiln_floats m;
    kiln_ints nan = {0};
    for (int j = 0; j < L; j++) m[j] = -INFINITY;
    for (int64_t c = 0; c < whole; c += L) {
      kiln_floats v;
      memcpy(&v, xr + c, sizeof v);
      const kiln_ints greater = v > m;
      m = (kiln_floats)(((kiln_ints)v & greater) | ((kiln_ints)m & ~greater));
      nan |= v != v;
    }
    float top = -INFINITY;
    int anyNan = 0;
    for (int64_t c = whole; c < n; c++) top = xr[c] > top ? xr[c] : top, anyNan |= xr[c] != xr[c];
    for (int j = 0; j < L; j++) top = m[j] > top ? m[j] : top, anyNan |= nan[j] != 0;
    if (anyNan) top = NAN;
    float s[L] = {0};
    for (int64_t c = 0; c < whole; c += L)
      for (int j = 0; j < L; j++) {
        const float e = kiln_exp(xr[c + j] - top);
        pr[c + j] = e;
        s[j] += e;
      }
    float sum = 0.0f;
    for (int64_t c = whole; c < n; c++) sum += pr[c] = kiln_exp(xr[c] - top);
    for (int j = 0; j < L; j++) sum += s[j];
    const float inv = 1.0f / sum;
    for (int64_t c = 0; c < n; c++) pr[c] *= inv;
    lse[r] = top + logf(sum);
    max[r] = top;
  }
}

/*
 * Rows of updates added into a copy of a table, for the columns [c0, c1): args are the table [rows,
 * width], row indices (int32 [updates], each in [0, rows): Kiln clamps them) and the updates [updates,
 * width], then the result [rows, width]. The updates are added in their order, as the reference does.
 */
static inline void kiln_scatter_rows(void *const *args, int64_t c0, int64_t c1, int64_t rows, int64_t width, int64_t updates) {
  const float *table = (const float *)args[0], *add = (const float *)args[2];
  const int32_t *at = (const int32_t *)args[1];
  float *out = (float *)args[3];
  for (int64_t r = 0; r < rows; r++) memcpy(out + r * width + c0, table + r * width + c0, (size_t)(c1 - c0) * sizeof(float));
  for (int64_t j = 0; j < updates; j++) {
    float *restrict o = out + (int64_t)at[j] * width;
    const float *restrict u = add + j * width;
    for (int64_t c = c0; c < c1; c++) o[c] += u[c];
  }
}

/*
 * The transpose of a matrix, for blocks [begin, end) of 64 × 64: args are the matrix [rows, cols], then
 * its transpose [cols, rows]. Block u covers the matrix's rows 64·(u mod row blocks) and columns
 * 64·(u div row blocks), so consecutive blocks write along the transpose's rows. Each block goes by
 * 16 × 16 tiles copied whole to the stack, so that every read and every write is a run of 16 floats; a
 * band of 16 columns over every row (a block of 16 × rows) took half as long again, cold, where its
 * reads were a cache line apart. A tile's column is gathered into a vector and stored at once: written
 * element by element, GCC 12 compiled the loop for sizes known at compile time (as a generated kernel
 * gives them) into code 9 times slower (4.1 ms against 0.45 for 4096 × 256).
 */
static inline void kiln_transpose(void *const *args, int64_t begin, int64_t end, int64_t rows, int64_t cols) {
  enum { T = 16, B = 64 };
  const float *in = (const float *)args[0];
  float *out = (float *)args[1];
  const int64_t rowBlocks = (rows + B - 1) / B;
  for (int64_t u = begin; u < end; u++) {
    const int64_t r0 = (u % rowBlocks) * B, c0 = (u / rowBlocks) * B;
    const int64_t r1 = r0 + B < rows ? r0 + B : rows, c1 = c0 + B < cols ? c0 + B : cols;
    for (int64_t i0 = r0; i0 < r1; i0 += T)
      for (int64_t j0 = c0; j0 < c1; j0 += T) {
        if (i0 + T > r1 || j0 + T > c1) {
          const int64_t ie = i0 + T < r1 ? i0 + T : r1, je = j0 + T < c1 ? j0 + T : c1;
          for (int64_t j = j0; j < je; j++)
            for (int64_t i = i0; i < ie; i++) out[j * rows + i] = in[i * cols + j];
          continue;
        }
        float tile[T][T];
        for (int i = 0; i < T; i++) memcpy(tile[i], in + (i0 + i) * cols + j0, sizeof tile[i]);
        for (int j = 0; j < T; j++) {
          kiln_floats column;
          for (int i = 0; i < T; i++) column[i] = tile[i][j];
          memcpy(out + (j0 + j) * rows + i0, &column, sizeof column);
        }
      }
  }
}

typedef struct kiln_op {
  OrtCustomOp op; /* first: ONNX Runtime's pointer to the op is a pointer to this */
  const kiln_kernel *kernel;
  kiln_api api;
} kiln_op;

/* Units per task: about 32 Ki elements, so that a task outlasts its dispatch. */
static int64_t kiln_units_per_task(const kiln_kernel *k) {
  int64_t n = (32768 + k->unit - 1) / k->unit;
  return n < 1 ? 1 : n;
}

typedef struct kiln_job {
  const kiln_kernel *kernel;
  void *const *args;
  int64_t per_task;
} kiln_job;

static void kiln_run_task(void *data, size_t task) {
  const kiln_job *job = (const kiln_job *)data;
  int64_t begin = (int64_t)task * job->per_task, end = begin + job->per_task;
  if (end > job->kernel->units) end = job->kernel->units;
  job->kernel->body(job->args, begin, end);
}

static OrtStatus *kiln_compute(void *state, void *context) {
  const kiln_op *op = (const kiln_op *)state;
  const kiln_kernel *k = op->kernel;
  kiln_api api = op->api;
  void *args[KILN_MAX_ARGS];
  OrtStatus *s;
  for (int i = 0; i < k->inputs; i++) {
    void *value;
    if ((s = KILN_CALL(api, SLOT_KernelContext_GetInput, OrtStatus * (*)(void *, size_t, void **))(context, i, &value))) return s;
    if ((s = KILN_CALL(api, SLOT_GetTensorMutableData, OrtStatus * (*)(void *, void **))(value, &args[i]))) return s;
  }
  for (int j = 0; j < k->outputs; j++) {
    void *value;
    if ((s = KILN_CALL(api, SLOT_KernelContext_GetOutput, OrtStatus * (*)(void *, size_t, const int64_t *, size_t, void **))(
             context, j, k->dims[j], (size_t)k->ranks[j], &value)))
      return s;
    if ((s = KILN_CALL(api, SLOT_GetTensorMutableData, OrtStatus * (*)(void *, void **))(value, &args[k->inputs + j]))) return s;
  }
  kiln_job job = {k, args, kiln_units_per_task(k)};
  int64_t tasks = (k->units + job.per_task - 1) / job.per_task;
  if (tasks <= 1) {
    k->body(args, 0, k->units);
    return NULL;
  }
  return KILN_CALL(api, SLOT_KernelContext_ParallelFor, OrtStatus * (*)(void *, void (*)(void *, size_t), size_t, size_t, void *))(
      context, kiln_run_task, (size_t)tasks, 0, &job);
}

static OrtStatus *kiln_create_kernel(const OrtCustomOp *op, kiln_api api, const void *info, void **kernel) {
  (void)api;
  (void)info;
  *kernel = (void *)op;
  return NULL;
}
static void kiln_destroy_kernel(void *kernel) { (void)kernel; }
static const char *kiln_name(const OrtCustomOp *op) { return ((const kiln_op *)op)->kernel->name; }
static const char *kiln_provider(const OrtCustomOp *op) {
  (void)op;
  return "CPUExecutionProvider";
}
static size_t kiln_input_count(const OrtCustomOp *op) { return (size_t)((const kiln_op *)op)->kernel->inputs; }
static size_t kiln_output_count(const OrtCustomOp *op) { return (size_t)((const kiln_op *)op)->kernel->outputs; }
static int kiln_input_type(const OrtCustomOp *op, size_t i) { return ((const kiln_op *)op)->kernel->types[i]; }
static int kiln_output_type(const OrtCustomOp *op, size_t j) {
  const kiln_kernel *k = ((const kiln_op *)op)->kernel;
  return k->types[k->inputs + j];
}
static int kiln_required(const OrtCustomOp *op, size_t i) {
  (void)op;
  (void)i;
  return 0; /* INPUT_OUTPUT_REQUIRED */
}
static int kiln_default_memory(const OrtCustomOp *op, size_t i) {
  (void)op;
  (void)i;
  return 0; /* OrtMemTypeDefault */
}
static int kiln_one(const OrtCustomOp *op) {
  (void)op;
  return 1;
}
static int kiln_last_version(const OrtCustomOp *op) {
  (void)op;
  return 0x7fffffff;
}

/* Every output's type and shape, so that ONNX Runtime's optimizer still knows the shapes downstream. */
static OrtStatus *kiln_infer_shapes(const OrtCustomOp *op, void *context) {
  const kiln_op *o = (const kiln_op *)op;
  const kiln_kernel *k = o->kernel;
  kiln_api api = o->api;
  for (int j = 0; j < k->outputs; j++) {
    void *info;
    OrtStatus *s;
    if ((s = KILN_CALL(api, SLOT_CreateTensorTypeAndShapeInfo, OrtStatus * (*)(void **))(&info))) return s;
    s = KILN_CALL(api, SLOT_SetTensorElementType, OrtStatus * (*)(void *, int))(info, k->types[k->inputs + j]);
    if (!s) s = KILN_CALL(api, SLOT_SetDimensions, OrtStatus * (*)(void *, const int64_t *, size_t))(info, k->dims[j], (size_t)k->ranks[j]);
    if (!s) s = KILN_CALL(api, SLOT_ShapeInferContext_SetOutputTypeShape, OrtStatus * (*)(void *, size_t, void *))(context, (size_t)j, info);
    KILN_CALL(api, SLOT_ReleaseTensorTypeAndShapeInfo, void (*)(void *))(info);
    if (s) return s;
  }
  return NULL;
}

/*
 * Adds `count` kernels to `options` as domain "kiln.pointwise"; the domain is made once per library (the
 * generated kiln_register_pointwise, which koffi calls, passes its tables).
 */
static OrtStatus *kiln_register(void *options, const kiln_api_base *base, const kiln_kernel *kernels, kiln_op *ops, int count) {
  static void *domain;
  kiln_api api = base->GetApi(KILN_ORT_API);
  OrtStatus *s;
  if (!domain) {
    void *d;
    if ((s = KILN_CALL(api, SLOT_CreateCustomOpDomain, OrtStatus * (*)(const char *, void **))("kiln.pointwise", &d))) return s;
    for (int i = 0; i < count; i++) {
      kiln_op *o = &ops[i];
      o->kernel = &kernels[i];
      o->api = api;
      o->op.version = KILN_ORT_API;
      o->op.GetName = kiln_name;
      o->op.GetExecutionProviderType = kiln_provider;
      o->op.GetInputType = kiln_input_type;
      o->op.GetInputTypeCount = kiln_input_count;
      o->op.GetOutputType = kiln_output_type;
      o->op.GetOutputTypeCount = kiln_output_count;
      o->op.KernelDestroy = kiln_destroy_kernel;
      o->op.GetInputCharacteristic = kiln_required;
      o->op.GetOutputCharacteristic = kiln_required;
      o->op.GetInputMemoryType = kiln_default_memory;
      o->op.GetVariadicInputMinArity = kiln_one;
      o->op.GetVariadicInputHomogeneity = kiln_one;
      o->op.GetVariadicOutputMinArity = kiln_one;
      o->op.GetVariadicOutputHomogeneity = kiln_one;
      o->op.CreateKernelV2 = kiln_create_kernel;
      o->op.KernelComputeV2 = kiln_compute;
      o->op.InferOutputShapeFn = kiln_infer_shapes;
      o->op.GetStartVersion = kiln_one;
      o->op.GetEndVersion = kiln_last_version;
      if ((s = KILN_CALL(api, SLOT_CustomOpDomain_Add, OrtStatus * (*)(void *, const OrtCustomOp *))(d, &o->op))) return s;
    }
    domain = d;
  }
  return KILN_CALL(api, SLOT_AddCustomOpDomain, OrtStatus * (*)(void *, void *))(options, domain);
}
