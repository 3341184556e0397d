/* parallel.c: the thread pool of generated CPU kernels (ovta_base.h section 4): ovta_par_for,
 * ovta_set_threads, ovta_get_threads, and the process CPU clock.
 *
 * One pool per process: threads - 1 workers, started on the first parallel loop that needs them.
 * Between loops a worker spins on the loop generation for a while (SPIN_NS, 100 us: the loops of one
 * inference follow each other within microseconds, and waking a sleeping thread costs tens of
 * them on a virtual machine), then sleeps on a condition variable; the caller signals it only
 * when some worker sleeps. A loop is published by a new generation in `state`; a worker takes
 * part by registering in it (a count in its low bits) while the loop is open. The caller runs
 * chunks itself, then closes the loop and waits (spinning, then yielding) only for the workers
 * that registered, not for ones still waking up: a late worker finds the loop closed and goes
 * back to waiting. The iterations are cut into one slice per thread taking part (the caller's
 * first, then worker w's at w + 1): each thread takes chunks from its own slice (half of what is
 * left of it, at least n / (16 x threads)), then from the others', so in loops of the same
 * extent the same thread runs the same range (consecutive layers split the same way find their
 * data in that core's cache), and a late or preempted thread's range is taken by the others, the
 * last chunks small so the threads finish together. Which thread runs a chunk varies, what it computes does not (each
 * iteration is computed by one thread, in order), so results are the same for any thread count.
 * A loop started inside a body, or while another thread's loop runs, runs serially on its
 * caller. A child process after fork() starts its own workers. */
#include "ovta_base.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
#define SPIN_NS 100000 /* a worker spins this long after a loop before sleeping (100 us) */
#define JOIN_SPIN_NS 50000 /* the caller spins this long for registered workers, then yields */
#define CLOSED 0x80000000u /* state: the current loop takes no more workers */

typedef struct pool {
  pthread_mutex_t mu;        /* guards sleeping on wake, threads and started */
  pthread_cond_t wake;       /* idle workers sleep here */
  int threads;               /* threads in use (caller included); 0 until set or first used */
  int started;               /* workers started */
  atomic_int sleepers;       /* workers asleep on wake (or about to be) */
  atomic_ullong state;       /* generation << 32 | CLOSED | workers registered in its loop */
  atomic_int finished;       /* registered workers done with the current loop */
  atomic_int joinable;       /* workers (by id) that may take part in the current loop */
  ovta_par_body body;        /* the current loop */
  void *ctx;                 /* its context */
  int64_t n;                 /* its iterations */
  int64_t min_chunk;         /* the smallest take */
  int slices;                /* the loop's slices: one per thread taking part (caller 0, worker w: w + 1) */
  struct {
    _Alignas(64) atomic_llong next; /* first iteration of the slice not yet taken */
    int64_t end;                    /* the slice's end */
  } sl[MAX_THREADS];         /* slice k: iterations [k n / slices, (k + 1) n / slices) */
  atomic_flag busy;          /* a loop is running (others run serially) */
} pool;

static pool P = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .busy = ATOMIC_FLAG_INIT};
static _Thread_local bool in_body; /* this thread is running a loop's body */

double ovta_cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t mono_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
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

/* Take chunks of slice k until none is left: each take half of what remains of it, at least
 * the smallest take. */
static void run_slice(int k) {
  int64_t end = P.sl[k].end, mc = P.min_chunk;
  long long lo = atomic_load_explicit(&P.sl[k].next, memory_order_relaxed);
  while (lo < end) {
    int64_t c = (end - lo) / 2;
    if (c < mc) c = mc;
    if (atomic_compare_exchange_weak(&P.sl[k].next, &lo, lo + c)) {
      P.body(P.ctx, lo, lo + c < end ? lo + c : end);
      lo = atomic_load_explicit(&P.sl[k].next, memory_order_relaxed);
    }
  }
}

/* Thread id's part of the current loop: its own slice first (the same thread index gets the same
 * range of iterations in every loop of the same extent: consecutive layers split the same way
 * find their data in that core's cache), then what is left of the others (a late or preempted
 * thread's iterations are taken by the others). */
static void run_chunks(int id) {
  in_body = true;
  for (int j = 0; j < P.slices; j++) run_slice((id + j) % P.slices);
  in_body = false;
}

/* Wait for a generation other than gen: spin SPIN_NS, then sleep. The new state. */
static unsigned long long wait_gen(unsigned long long gen) {
  uint64_t t0 = 0;
  for (unsigned spins = 0;; spins++) {
    unsigned long long s = atomic_load(&P.state);
    if (s >> 32 != gen) return s;
    cpu_relax();
    if ((spins & 255) == 0) {
      uint64_t t = mono_ns();
      if (!t0) t0 = t;
      else if (t - t0 > SPIN_NS) break;
    }
  }
  pthread_mutex_lock(&P.mu);
  atomic_fetch_add(&P.sleepers, 1); /* seq_cst: the caller's new state or its look at sleepers */
  unsigned long long s;
  while ((s = atomic_load(&P.state)) >> 32 == gen) pthread_cond_wait(&P.wake, &P.mu);
  atomic_fetch_sub(&P.sleepers, 1);
  pthread_mutex_unlock(&P.mu);
  return s;
}

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  unsigned long long gen = atomic_load(&P.state) >> 32;
  for (;;) {
    unsigned long long s = wait_gen(gen);
    gen = s >> 32;
    /* register while the loop is open and this worker is among its threads */
    bool in = false;
    while (!(s & CLOSED) && s >> 32 == gen && id < atomic_load_explicit(&P.joinable, memory_order_relaxed)) {
      if (atomic_compare_exchange_weak(&P.state, &s, s + 1)) {
        in = true;
        break;
      }
    }
    if (!in) continue;
    run_chunks(id + 1);
    atomic_fetch_add(&P.finished, 1);
  }
  return NULL;
}

/* In a child after fork() only the forking thread exists: forget the workers (started again
 * on demand) and reset the locks, which another thread may have held. */
static void after_fork_child(void) {
  pthread_mutex_init(&P.mu, NULL);
  pthread_cond_init(&P.wake, NULL);
  P.started = 0;
  atomic_store(&P.sleepers, 0);
  atomic_flag_clear(&P.busy);
  in_body = false;
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void register_fork(void) { pthread_atfork(NULL, NULL, after_fork_child); }

/* Start workers up to want - 1 (P.mu held); the count started. */
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
  pthread_mutex_unlock(&P.mu);
  if (workers > threads - 1) workers = threads - 1;
  /* the loop, then its generation (no worker reads these before registering in it) */
  P.body = body, P.ctx = ctx, P.n = n, P.slices = workers + 1;
  P.min_chunk = n / (16 * (int64_t)(workers + 1));
  if (P.min_chunk < 1) P.min_chunk = 1;
  for (int k = 0; k < P.slices; k++) {
    atomic_store_explicit(&P.sl[k].next, n * k / P.slices, memory_order_relaxed);
    P.sl[k].end = n * (k + 1) / P.slices;
  }
  atomic_store_explicit(&P.joinable, workers, memory_order_relaxed); /* a late worker of the last loop may read it */
  atomic_store(&P.finished, 0);
  unsigned long long s = atomic_load(&P.state);
  atomic_store(&P.state, ((s >> 32) + 1) << 32); /* seq_cst, before the look at sleepers */
  if (atomic_load(&P.sleepers) > 0) {
    pthread_mutex_lock(&P.mu);
    pthread_cond_broadcast(&P.wake);
    pthread_mutex_unlock(&P.mu);
  }
  run_chunks(0);
  /* close the loop: the workers registered are the ones to wait for */
  int joined = (int)(atomic_fetch_or(&P.state, CLOSED) & (CLOSED - 1));
  uint64_t t0 = 0;
  bool yield = false;
  for (unsigned spins = 0; atomic_load(&P.finished) < joined; spins++) { /* they are running: spin, */
    if (yield) sched_yield();                                             /* then yield (preempted) */
    else cpu_relax();
    if ((spins & 255) == 0 && !yield) {
      uint64_t t = mono_ns();
      if (!t0) t0 = t;
      else yield = t - t0 > JOIN_SPIN_NS;
    }
  }
  atomic_flag_clear(&P.busy);
}
