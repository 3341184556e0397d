/* parallel.c: the thread pool of generated CPU kernels (ovta_base.h section 4): ovta_par_for,
 * ovta_set_threads, ovta_get_threads, and the process CPU clock.
 *
 * One pool per process: threads - 1 workers, started on the first parallel loop that needs them,
 * asleep on a condition variable between loops. A loop's iterations are cut into contiguous
 * chunks (up to 4 per thread) taken in turn by the caller and the workers from an atomic counter;
 * the caller returns when every chunk is done. Which thread runs a chunk varies, what it computes
 * does not (each iteration is computed by one thread, in order), so results are the same for any
 * thread count. A loop started inside a body, or while another thread's loop runs, runs serially
 * on its caller. A child process after fork() starts its own workers. */
#include "ovta_base.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64

typedef struct pool {
  pthread_mutex_t mu;        /* guards everything below but the counters */
  pthread_cond_t wake;       /* workers wait here for a new generation */
  pthread_cond_t done;       /* the caller waits here for the workers */
  int threads;               /* threads in use (caller included); 0 until set or first used */
  int started;               /* workers started */
  unsigned long gen;         /* loop generation: a new value wakes the workers */
  int joined;                /* workers taking part in the current loop */
  int finished;              /* of those, how many are done */
  ovta_par_body body;        /* the current loop */
  void *ctx;                 /* its context */
  int64_t n;                 /* its iterations */
  int64_t chunk;             /* iterations per chunk */
  atomic_llong next;         /* next chunk to take */
  atomic_flag busy;          /* a loop is running (others run serially) */
} pool;

static pool P = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
                 .done = PTHREAD_COND_INITIALIZER, .busy = ATOMIC_FLAG_INIT};
static _Thread_local bool in_body; /* this thread is running a loop's body */

double ovta_cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int online_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

void ovta_set_threads(int n) {
  pthread_mutex_lock(&P.mu);
  P.threads = n <= 0 ? online_cores() : n > MAX_THREADS ? MAX_THREADS : n;
  pthread_mutex_unlock(&P.mu);
}

int ovta_get_threads(void) {
  pthread_mutex_lock(&P.mu);
  if (!P.threads) P.threads = online_cores();
  int n = P.threads;
  pthread_mutex_unlock(&P.mu);
  return n;
}

/* Take chunks of the current loop until none is left. */
static void run_chunks(void) {
  in_body = true;
  for (;;) {
    int64_t c = atomic_fetch_add(&P.next, 1), lo = c * P.chunk;
    if (lo >= P.n) break;
    int64_t hi = lo + P.chunk < P.n ? lo + P.chunk : P.n;
    P.body(P.ctx, lo, hi);
  }
  in_body = false;
}

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  unsigned long seen = 0;
  pthread_mutex_lock(&P.mu);
  for (;;) {
    while (P.gen == seen || id >= P.joined) {
      seen = P.gen;
      pthread_cond_wait(&P.wake, &P.mu);
    }
    seen = P.gen;
    pthread_mutex_unlock(&P.mu);
    run_chunks();
    pthread_mutex_lock(&P.mu);
    if (++P.finished == P.joined) pthread_cond_signal(&P.done);
  }
  return NULL;
}

/* In a child after fork() only the forking thread exists: forget the workers (started again
 * on demand) and reset the locks, which another thread may have held. */
static void after_fork_child(void) {
  pthread_mutex_init(&P.mu, NULL);
  pthread_cond_init(&P.wake, NULL);
  pthread_cond_init(&P.done, NULL);
  P.started = 0, P.joined = 0, P.finished = 0;
  atomic_flag_clear(&P.busy);
  in_body = false;
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void register_fork(void) { pthread_atfork(NULL, NULL, after_fork_child); }

/* Start workers up to want - 1; the count started. */
static int start_workers(int want) {
  pthread_once(&fork_once, register_fork);
  while (P.started < want - 1) {
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &a, worker, (void *)(intptr_t)P.started);
    pthread_attr_destroy(&a);
    if (rc) break; /* fewer threads: still correct */
    P.started++;
  }
  return P.started;
}

void ovta_par_for(ovta_par_body body, void *ctx, int64_t n) {
  if (n <= 0) return;
  int threads = ovta_get_threads();
  if (threads == 1 || n == 1 || in_body || atomic_flag_test_and_set(&P.busy)) {
    bool was = in_body;
    in_body = true;
    body(ctx, 0, n);
    in_body = was;
    return;
  }
  pthread_mutex_lock(&P.mu);
  int workers = start_workers(threads);
  int64_t chunks = (int64_t)(workers + 1) * 4;
  if (chunks > n) chunks = n;
  P.body = body, P.ctx = ctx, P.n = n, P.chunk = (n + chunks - 1) / chunks;
  atomic_store(&P.next, 0);
  P.joined = workers;
  P.finished = 0;
  P.gen++;
  pthread_cond_broadcast(&P.wake);
  pthread_mutex_unlock(&P.mu);
  run_chunks();
  pthread_mutex_lock(&P.mu);
  while (P.finished < P.joined) pthread_cond_wait(&P.done, &P.mu);
  P.joined = 0;
  pthread_mutex_unlock(&P.mu);
  atomic_flag_clear(&P.busy);
}
