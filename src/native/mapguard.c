/* The pages of a mapped input file kept readable when the file shrinks while it is read
 * (dprank.data._input_stream's mapped reading, through dprank.base._compiled.MappedPages).
 *
 * Where a file that a process has mapped is truncated by another, a read of a page of the
 * mapping past the file's new end raises SIGBUS, whose default action ends the process
 * (no message, a core dump). A mapping registered here (map_guard_add) is guarded by a
 * SIGBUS handler that, for a fault inside it, maps anonymous zero pages over the rest of
 * the mapping from the faulting page on (MAP_FIXED: the same addresses, read-only), marks
 * the mapping as having lost pages and returns: the read that faulted is made again and
 * reads zeros, and the reader, which asks map_guard_lost after each block, stops with a
 * message. libwayland's wl_shm does the same for the shared memory of its clients. A
 * SIGBUS that is not a fault inside a registered mapping (another mapping, a signal sent
 * with kill) goes to the action that was in place before (a handler, or the default:
 * the process ends as it would have).
 *
 * The handler is installed while at least one mapping is registered and the previous
 * action restored when the last one is removed (unless someone replaced the handler in
 * between: theirs is kept). Registrations take a mutex; the handler reads the table of
 * mappings without one (atomic loads; a slot's end is written before its start, and its
 * start cleared first). The handler calls only mmap, sigaction and raise (system calls;
 * mmap is not on POSIX's list of async-signal-safe functions, but is a plain system call
 * on Linux and macOS, as wl_shm relies on). Without POSIX signals (Windows, where a mapped
 * file cannot be truncated at all) registering does nothing. */

#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* sigaction, siginfo_t and MAP_ANONYMOUS under a strict -std too */
#endif
#include "native.h"

#include <stdint.h>

#if defined(_WIN32)

int64_t map_guard_add(const void *base, int64_t len)
{
    (void)base;
    (void)len;
    return 0;
}
int map_guard_lost(int64_t slot)
{
    (void)slot;
    return 0;
}
int map_guard_remove(int64_t slot)
{
    (void)slot;
    return 0;
}
int map_guard_installed(void) { return 0; }

#else

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif

/* mappings guarded at once (a process reading more files at once reads the rest unmapped) */
#define GUARD_SLOTS 64

typedef struct {
    uintptr_t start; /* 0: a free slot */
    uintptr_t end;   /* the end of the mapping's last page */
    int lost;        /* a fault inside it was answered with zero pages */
} guard_t;

static guard_t guards[GUARD_SLOTS];
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int guards_used;           /* under guard_lock */
static struct sigaction previous; /* the action before ours (written before ours is set) */
static uintptr_t page_size;

/* The signal as the previous action would have taken it. */
static void pass_on(int sig, siginfo_t *info, void *context)
{
    if (previous.sa_flags & SA_SIGINFO) {
        previous.sa_sigaction(sig, info, context);
        return;
    }
    if (previous.sa_handler == SIG_IGN && info->si_code <= 0)
        return; /* sent by a process, and ignored before */
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
        return;
    }
    /* the default action (a fault cannot be ignored): the signal again, taken by it once
     * this handler returns (it is blocked while the handler runs) */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    int saved = errno;
    uintptr_t at = (uintptr_t)info->si_addr;
    if (info->si_code > 0) { /* a fault, not a signal sent by a process */
        for (int k = 0; k < GUARD_SLOTS; k++) {
            uintptr_t start = __atomic_load_n(&guards[k].start, __ATOMIC_ACQUIRE);
            if (!start || at < start)
                continue;
            uintptr_t end = __atomic_load_n(&guards[k].end, __ATOMIC_ACQUIRE);
            if (at >= end)
                continue;
            uintptr_t page = at & ~(page_size - 1);
            void *got = mmap((void *)page, end - page, PROT_READ,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            if (got == MAP_FAILED)
                break; /* the fault stands */
            __atomic_store_n(&guards[k].lost, 1, __ATOMIC_RELEASE);
            errno = saved;
            return;
        }
    }
    errno = saved;
    pass_on(sig, info, context);
}

static int ours(const struct sigaction *act)
{
    return (act->sa_flags & SA_SIGINFO) && act->sa_sigaction == on_sigbus;
}

/* Our handler replaced by the previous action where nothing is guarded (under guard_lock). */
static void uninstall_if_idle(void)
{
    struct sigaction now;
    if (guards_used == 0 && sigaction(SIGBUS, NULL, &now) == 0 && ours(&now))
        sigaction(SIGBUS, &previous, NULL);
}

/* Guard the mapping [base, base + len) (its whole last page); its slot, or -1 where the
 * table is full or the handler could not be installed (the caller then reads unmapped). */
int64_t map_guard_add(const void *base, int64_t len)
{
    if (!base || len <= 0)
        return -1;
    int64_t slot = -1;
    pthread_mutex_lock(&guard_lock);
    if (!page_size)
        page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    struct sigaction now;
    if (sigaction(SIGBUS, NULL, &now) != 0)
        goto done;
    if (!ours(&now)) { /* not installed yet (or replaced since: the new action is passed on to) */
        struct sigaction act;
        memset(&act, 0, sizeof act);
        act.sa_sigaction = on_sigbus;
        act.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&act.sa_mask);
        previous = now;
        if (sigaction(SIGBUS, &act, NULL) != 0)
            goto done;
    }
    for (int k = 0; k < GUARD_SLOTS; k++) {
        if (guards[k].start)
            continue;
        uintptr_t start = (uintptr_t)base;
        uintptr_t end = (start + (uintptr_t)len + page_size - 1) & ~(page_size - 1);
        __atomic_store_n(&guards[k].lost, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&guards[k].end, end, __ATOMIC_RELEASE);
        __atomic_store_n(&guards[k].start, start, __ATOMIC_RELEASE);
        guards_used++;
        slot = k;
        break;
    }
done:
    uninstall_if_idle(); /* nothing guarded (a full table, a refused handler) */
    pthread_mutex_unlock(&guard_lock);
    return slot;
}

/* Whether a fault inside the mapping of ``slot`` was answered with zero pages. */
int map_guard_lost(int64_t slot)
{
    if (slot < 0 || slot >= GUARD_SLOTS)
        return 0;
    return __atomic_load_n(&guards[slot].lost, __ATOMIC_ACQUIRE);
}

/* Stop guarding the mapping of ``slot`` (before it is unmapped); whether it lost pages.
 * The last mapping removed restores the previous action (where ours is still in place). */
int map_guard_remove(int64_t slot)
{
    if (slot < 0 || slot >= GUARD_SLOTS)
        return 0;
    pthread_mutex_lock(&guard_lock);
    int lost = 0;
    if (guards[slot].start) {
        __atomic_store_n(&guards[slot].start, 0, __ATOMIC_RELEASE);
        lost = __atomic_load_n(&guards[slot].lost, __ATOMIC_ACQUIRE);
        guards_used--;
    }
    uninstall_if_idle();
    pthread_mutex_unlock(&guard_lock);
    return lost;
}

/* Whether the SIGBUS action in place is this file's handler (for tests). */
int map_guard_installed(void)
{
    struct sigaction now;
    return sigaction(SIGBUS, NULL, &now) == 0 && ours(&now);
}

#endif
