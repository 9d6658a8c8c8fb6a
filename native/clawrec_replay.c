/* clawrec's replay shim: LD_PRELOADed into Chromium by `--site-from` replays (clawrec/replay_env.py).
 *
 * Why hand-rolled: libfaketime also wraps pthread_cond_timedwait, poll, epoll and sleep, and under Chromium that
 * spins the browser process (measured: no DevTools port within 20 s) and stretches renderer timers; a replay
 * needs only the wall clock moved and the OS random source seeded, nothing a page can see.
 *
 * CLAWREC_CLOCK_OFFSET_NS=N   CLOCK_REALTIME (clock_gettime, gettimeofday, time) reads N ns later (negative:
 *                             earlier). Monotonic clocks are untouched, so timers wait real time.
 * CLAWREC_RANDOM_SEED=S       getrandom(), getentropy() and syscall(SYS_getrandom) return seeded streams, one per
 *                             (renderer client id, thread name and its ordinal, length, call path): a page's
 *                             draws do not depend on the thread's internal ones, and no two processes or threads
 *                             share values (Chromium kills a renderer whose tokens repeat: measured).
 *                             Set only for renderer processes (--renderer-cmd-prefix): the browser's stays real.
 * CLAWREC_RANDOM_LOG=FILE     (debugging) one line per seeded draw: pid, thread name, length, stream key, streams.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int64_t offset_ns;
static int seeded;
static uint64_t seed;
static int log_fd = -1;

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_gettimeofday)(struct timeval *, void *);
static long (*real_syscall)(long, ...);

static void resolve(void);
static void read_client_id(void);

__attribute__((constructor)) static void init(void) {
  const char *off = getenv("CLAWREC_CLOCK_OFFSET_NS"), *s = getenv("CLAWREC_RANDOM_SEED");
  const char *log = getenv("CLAWREC_RANDOM_LOG");
  offset_ns = off ? strtoll(off, NULL, 10) : 0;
  if (s && *s) {
    seeded = 1;
    seed = strtoull(s, NULL, 10);
    read_client_id();
  }
  if (seeded && log && *log) log_fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  resolve();
}

/* ---- the wall clock ---- */

static void shift(struct timespec *ts) {
  int64_t ns = (int64_t)ts->tv_nsec + offset_ns % 1000000000LL;
  ts->tv_sec += offset_ns / 1000000000LL + ns / 1000000000LL;
  ns %= 1000000000LL;
  if (ns < 0) {
    ns += 1000000000LL;
    ts->tv_sec -= 1;
  }
  ts->tv_nsec = (long)ns;
}

static void resolve(void) {
  if (!real_clock_gettime)
    real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  if (!real_gettimeofday) real_gettimeofday = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
  if (!real_syscall) real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
}

int clock_gettime(clockid_t clk, struct timespec *ts) {
  if (!real_clock_gettime) resolve();
  int r = real_clock_gettime(clk, ts);
  if (r == 0 && offset_ns && (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE || clk == CLOCK_TAI)) shift(ts);
  return r;
}

int gettimeofday(struct timeval *tv, void *tz) {
  if (!real_gettimeofday) resolve();
  if (!offset_ns) return real_gettimeofday(tv, tz);
  struct timespec ts;
  int r = real_clock_gettime(CLOCK_REALTIME, &ts);
  if (r != 0) return r;
  shift(&ts);
  tv->tv_sec = ts.tv_sec;
  tv->tv_usec = ts.tv_nsec / 1000;
  if (tz) real_gettimeofday(NULL, tz);
  return 0;
}

time_t time(time_t *out) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out) *out = ts.tv_sec;
  return ts.tv_sec;
}

/* ---- the OS random source: one splitmix64 stream per (thread name, length, call path) ----
 * Why keyed by call path: with base::RandBytes on getrandom (UseBoringSSLForRandBytes off, see replay_env.py), a
 * renderer's main thread draws for its own tokens between a page's calls, a varying number of times between two
 * replays (measured); one stream per call path (return addresses, module-relative, up to the first frame outside a
 * loaded module, i.e. V8's generated code) gives crypto.getRandomValues its own sequence, the same in every replay. */

#define SLOTS 256
#define DEPTH 10
struct stream { uint64_t key, state; };
static __thread struct stream streams[SLOTS];
static __thread uint64_t thread_key, overflow;
static __thread int nstreams;
static unsigned name_counts[64];  /* threads seen per name (hashed): same-named threads get distinct streams */
static uint64_t process_key;      /* the renderer's --renderer-client-id: processes get distinct streams */

static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static uint64_t mix(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; i++, v >>= 8) h = (h ^ (v & 0xff)) * 1099511628211ULL;  /* FNV-1a */
  return h;
}

static void read_client_id(void) {
  char buf[8192];
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return;
  buf[n] = 0;
  for (char *p = buf; p < buf + n; p += strlen(p) + 1)
    if (strncmp(p, "--renderer-client-id=", 21) == 0) process_key = mix(process_key, strtoull(p + 21, NULL, 10));
}

/* The loaded modules' executable ranges, read with dl_iterate_phdr (no allocation) and read again only when a
 * library was loaded since: dladdr's symbol search per frame made a renderer's start 2-3 s slower (measured). */
#define MODULES 256
static struct module { uintptr_t start, end, base; } modules[MODULES];
static int nmodules;
static unsigned long long modules_adds;
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;

static int count_adds(struct dl_phdr_info *info, size_t size, void *out) {
  (void)size;
  *(unsigned long long *)out = info->dlpi_adds;
  return 1;  /* the first object is enough: dlpi_adds counts every load */
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size, (void)data;
  for (int i = 0; i < info->dlpi_phnum && nmodules < MODULES; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    modules[nmodules++] = (struct module){start, start + ph->p_memsz, info->dlpi_addr};
  }
  return 0;
}

static void refresh_modules(void) {
  unsigned long long adds = 0;
  dl_iterate_phdr(count_adds, &adds);
  if (adds == __atomic_load_n(&modules_adds, __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&modules_lock);
  nmodules = 0;
  dl_iterate_phdr(add_module, NULL);
  __atomic_store_n(&modules_adds, adds, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&modules_lock);
}

/* The module-relative address of `ret`, or 0 when no module holds it. */
static uintptr_t module_offset(uintptr_t ret) {
  uintptr_t off = 0;
  pthread_mutex_lock(&modules_lock);
  for (int i = 0; i < nmodules && !off; i++)
    if (ret >= modules[i].start && ret < modules[i].end) off = ret - modules[i].base;
  pthread_mutex_unlock(&modules_lock);
  return off;
}

/* How far up the stack a walk may read: the main thread's stack ends at __libc_stack_end; another thread's is
 * bounded to 1 MiB above us (nothing here may allocate: the draw can come from inside the allocator). */
extern void *__libc_stack_end;

/* The caller's path: frame-pointer walk (Chromium keeps frame pointers), each step checked to go up by at most
 * 64 KiB and to stay under that bound, stopped at the first return address that no loaded module holds (V8's
 * generated code). */
__attribute__((noinline)) static uint64_t call_path(uint64_t h) {
  uintptr_t *fp = (uintptr_t *)__builtin_frame_address(0), low = (uintptr_t)&h;
  uintptr_t end = (uintptr_t)__libc_stack_end, top = low + (1u << 20);
  if (end > low && end < top) top = end;
  refresh_modules();
  for (int depth = 0; depth < DEPTH; depth++) {
    if ((uintptr_t)fp < low || (uintptr_t)fp + 2 * sizeof(uintptr_t) > top) break;
    uintptr_t next = fp[0], ret = fp[1], off = ret ? module_offset(ret) : 0;
    if (off == 0) break;
    h = mix(h, off);
    if (next <= (uintptr_t)fp || next - (uintptr_t)fp > 65536 || (next & 7)) break;
    fp = (uintptr_t *)next;
  }
  return h;
}

static void fill(void *buf, size_t len) {
  char name[17] = {0};
  prctl(PR_GET_NAME, name, 0, 0, 0);
  if (!thread_key) {
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    unsigned index = __atomic_fetch_add(&name_counts[h % 64], 1, __ATOMIC_RELAXED);
    thread_key = mix(mix(h ^ process_key, index), 0x5eed) | 1;
    overflow = seed ^ thread_key;
  }
  uint64_t key = call_path(mix(thread_key, len)), *state = NULL;
  for (int i = 0; i < nstreams && !state; i++)
    if (streams[i].key == key) state = &streams[i].state;
  if (!state && nstreams < SLOTS) {
    streams[nstreams].key = key;
    streams[nstreams].state = seed ^ key;
    state = &streams[nstreams++].state;
  }
  if (!state) state = &overflow;  /* past SLOTS call paths: one more stream per thread (never restarted) */
  unsigned char *out = buf;
  for (size_t i = 0; i < len; i += 8) {
    uint64_t v = splitmix(state);
    memcpy(out + i, &v, len - i < 8 ? len - i : 8);
  }
  if (log_fd >= 0) {
    char line[128];
    int n = snprintf(line, sizeof line, "%d %s %zu %016llx %d\n", (int)getpid(), name, len, (unsigned long long)key,
                     nstreams);
    if (n > 0) (void)!write(log_fd, line, (size_t)n);
  }
}

ssize_t getrandom(void *buf, size_t len, unsigned int flags) {
  if (!real_syscall) resolve();
  if (!seeded) return real_syscall(SYS_getrandom, buf, len, flags);
  fill(buf, len);
  return (ssize_t)len;
}

int getentropy(void *buf, size_t len) {
  if (len > 256) {
    errno = EIO;
    return -1;
  }
  if (!real_syscall) resolve();
  if (!seeded) return real_syscall(SYS_getrandom, buf, len, 0) == (long)len ? 0 : -1;
  fill(buf, len);
  return 0;
}

long syscall(long n, ...) {
  va_list ap;
  va_start(ap, n);
  long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
  long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
  va_end(ap);
  if (!real_syscall) resolve();
  if (n == SYS_getrandom && seeded) {
    fill((void *)a, (size_t)b);
    return b;
  }
  return real_syscall(n, a, b, c, d, e, f);
}
