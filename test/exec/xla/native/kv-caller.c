/* Calls PJRT key-value callbacks the way an XLA plugin does (CApiKeyValueStore in
 * xla/pjrt/c/pjrt_c_api_helpers.cc): from threads of its own, with argument structs whose
 * struct_size is left unset, and a callback_error that makes the PJRT_Error the callback returns.
 * Each entry point starts its threads and joins them, so the calling JS thread stays blocked in one
 * synchronous native call for the whole time, as it is inside PJRT_Client_Create.
 * The structs are those of pjrt_c_api.h (unchanged from PJRT C API 0.81 through 0.90). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct PJRT_Error { int code; size_t size; char message[1000]; } PJRT_Error;
typedef PJRT_Error *(*PJRT_CallbackError)(int code, const char *message, size_t message_size);
typedef void (*Deleter)(char *value);

typedef struct {
  size_t struct_size; void *extension_start; const char *key; size_t key_size; int timeout_in_ms;
  PJRT_CallbackError *callback_error; void *user_arg; char *value; size_t value_size; Deleter value_deleter_callback;
} GetArgs;
typedef struct {
  size_t struct_size; void *extension_start; const char *key; size_t key_size;
  PJRT_CallbackError *callback_error; void *user_arg; char *value; size_t value_size; Deleter value_deleter_callback;
} TryGetArgs;
typedef struct {
  size_t struct_size; void *extension_start; const char *key; size_t key_size; const char *value; size_t value_size;
  PJRT_CallbackError *callback_error; void *user_arg;
} PutArgs;
typedef PJRT_Error *(*GetFn)(GetArgs *);
typedef PJRT_Error *(*TryGetFn)(TryGetArgs *);
typedef PJRT_Error *(*PutFn)(PutArgs *);

static PJRT_Error *make_error(int code, const char *message, size_t size) {
  PJRT_Error *e = calloc(1, sizeof *e);
  e->code = code;
  e->size = size < sizeof e->message - 1 ? size : sizeof e->message - 1;
  memcpy(e->message, message, e->size);
  return e;
}

/* One store operation and what came back: code 0 with a value, or an error code and message. */
typedef struct {
  int op; /* 0 get, 1 tryGet, 2 put */
  void *fn; const char *key; const char *value; size_t value_size; int timeout_ms; int delay_ms;
  int code; char result[1000]; size_t result_size; double elapsed_ms; pthread_t thread;
} Call;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void keep(Call *c, PJRT_Error *e, char *value, size_t size, Deleter deleter) {
  if (e) {
    c->code = e->code;
    c->result_size = e->size;
    memcpy(c->result, e->message, e->size);
    free(e);
    return;
  }
  c->code = 0;
  c->result_size = size < sizeof c->result ? size : sizeof c->result;
  if (size) memcpy(c->result, value, c->result_size);
  if (deleter) deleter(value); /* the plugin copies, then calls the deleter (puts have none) */
}

static void *run(void *p) {
  Call *c = p;
  PJRT_CallbackError callback_error = make_error;
  if (c->delay_ms) {
    struct timespec d = {c->delay_ms / 1000, (c->delay_ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
  }
  double t0 = now_ms();
  if (c->op == 0) {
    GetArgs a;
    memset(&a, 0xab, sizeof a); /* struct_size and extension_start stay unset, as XLA leaves them */
    a.key = c->key; a.key_size = strlen(c->key); a.timeout_in_ms = c->timeout_ms;
    a.callback_error = &callback_error; a.user_arg = NULL;
    PJRT_Error *e = ((GetFn)c->fn)(&a);
    keep(c, e, a.value, a.value_size, a.value_deleter_callback);
  } else if (c->op == 1) {
    TryGetArgs a;
    memset(&a, 0xab, sizeof a);
    a.key = c->key; a.key_size = strlen(c->key); a.callback_error = &callback_error; a.user_arg = NULL;
    PJRT_Error *e = ((TryGetFn)c->fn)(&a);
    keep(c, e, a.value, a.value_size, a.value_deleter_callback);
  } else {
    PutArgs a;
    memset(&a, 0xab, sizeof a);
    a.key = c->key; a.key_size = strlen(c->key); a.value = c->value; a.value_size = c->value_size;
    a.callback_error = &callback_error; a.user_arg = NULL;
    PJRT_Error *e = ((PutFn)c->fn)(&a);
    keep(c, e, NULL, 0, NULL);
  }
  c->elapsed_ms = now_ms() - t0;
  return NULL;
}

/* Runs `n` calls at once, each on its own thread, and returns when all have returned. */
static int kiln_kv_run(Call *calls, int n) {
  for (int i = 0; i < n; i++)
    if (pthread_create(&calls[i].thread, NULL, run, &calls[i])) return -1;
  for (int i = 0; i < n; i++) pthread_join(calls[i].thread, NULL);
  return 0;
}

/* The topology exchange of XLA's GPU client for two nodes (ExchangeTopologies in
 * xla/pjrt/distributed/topology_util.cc): every node puts local_topology/<platform>/<node>; node 0
 * gets every node's from a thread pool (one thread per node), builds and puts global_topology/<platform>;
 * the others get it. Node n uses callbacks[3n..3n+2] = get, tryGet, put. Returns 0, or the first error's code. */
typedef struct { void **callbacks; int node; int code; } Node;

static void *node_main(void *p) {
  Node *n = p;
  GetFn get = (GetFn)n->callbacks[3 * n->node];
  PutFn put = (PutFn)n->callbacks[3 * n->node + 2];
  char local[64];
  snprintf(local, sizeof local, "local_topology/cuda/%d", n->node);
  Call c = {.op = 2, .fn = (void *)put, .key = local, .value = local, .value_size = strlen(local)};
  run(&c);
  if (c.code) { n->code = c.code; return NULL; }
  if (n->node == 0) {
    Call gets[2] = {{.op = 0, .fn = (void *)get, .key = "local_topology/cuda/0", .timeout_ms = 10000},
                    {.op = 0, .fn = (void *)get, .key = "local_topology/cuda/1", .timeout_ms = 10000}};
    kiln_kv_run(gets, 2);
    for (int i = 0; i < 2; i++)
      if (gets[i].code) { n->code = gets[i].code; return NULL; }
    static const char global[] = "global:local_topology/cuda/0+local_topology/cuda/1";
    Call g = {.op = 2, .fn = (void *)put, .key = "global_topology/cuda", .value = global, .value_size = sizeof global - 1};
    run(&g);
    n->code = g.code;
  } else {
    Call g = {.op = 0, .fn = (void *)get, .key = "global_topology/cuda", .timeout_ms = 10000};
    run(&g);
    n->code = g.code;
  }
  return NULL;
}

int kiln_kv_exchange_topologies(void **callbacks) {
  Node nodes[2] = {{callbacks, 1, 0}, {callbacks, 0, 0}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, node_main, &nodes[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  return nodes[0].code ? nodes[0].code : nodes[1].code;
}

/* One call (op 0 get, 1 tryGet, 2 put) on a new thread; returns its code (0: ok) with the value or
 * the error message in `result` (its size in *result_size) and the call's duration in *elapsed_ms. */
int kiln_kv_call(int op, void *fn, const char *key, const char *value, size_t value_size, int timeout_ms,
                 char *result, size_t *result_size, double *elapsed_ms) {
  Call c = {.op = op, .fn = fn, .key = key, .value = value, .value_size = value_size, .timeout_ms = timeout_ms};
  if (kiln_kv_run(&c, 1)) return -1;
  memcpy(result, c.result, c.result_size);
  *result_size = c.result_size;
  *elapsed_ms = c.elapsed_ms;
  return c.code;
}

/* A get on one thread while another thread puts its key `put_delay_ms` later (through the same
 * process's callbacks): the get must return the value then, not wait for its timeout. Returns the
 * get's code; *get_elapsed_ms is how long it waited. */
int kiln_kv_get_while_put(void *get, void *put, const char *key, int timeout_ms, int put_delay_ms, double *get_elapsed_ms) {
  Call c[2] = {{.op = 0, .fn = get, .key = key, .timeout_ms = timeout_ms},
               {.op = 2, .fn = put, .key = key, .value = "late", .value_size = 4, .delay_ms = put_delay_ms}};
  if (kiln_kv_run(c, 2)) return -1;
  *get_elapsed_ms = c[0].elapsed_ms;
  return c[0].code ? c[0].code : c[1].code;
}

/* The same call on the calling thread itself (no thread of its own): what XLA's GPU client does for its
 * own topology put inside PJRT_Client_Create, on the JS thread that called it. */
int kiln_kv_call_here(int op, void *fn, const char *key, const char *value, size_t value_size, int timeout_ms,
                      char *result, size_t *result_size, double *elapsed_ms) {
  Call c = {.op = op, .fn = fn, .key = key, .value = value, .value_size = value_size, .timeout_ms = timeout_ms};
  run(&c);
  memcpy(result, c.result, c.result_size);
  *result_size = c.result_size;
  *elapsed_ms = c.elapsed_ms;
  return c.code;
}
