// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate-fuzz: the driver. It makes a scratch tmpfs in a mount namespace
 * of its own, forks --procs worker processes of --threads threads each,
 * which run operations from ops.c picked by weight from their own seeded
 * random stream, and every --pause seconds quiesces them all: the
 * workers' children end, and each worker checks the stats identity of
 * its groups at rest. Before them it starts the verdict oracle
 * (oracle.c). At the end it restores the module parameters and prints
 * what ran; any failure names the seed and the command that replays it,
 * as does an operation kind that ran often and never once worked. Exit 0 if nothing failed, 1 otherwise, 2 for bad usage.
 * Kernel splats, hung tasks and leaks are the guest harness's to catch
 * (tests/vm exits 125).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fsgate.h>

#include "fuzz.h"

/* The module parameters the fuzzer changes, restored at the end. */
static const char *const fz_params[] = {
	"default_timeout_ms", "max_chain_ms", "allow_unbounded_waits",
	"max_pending_events", "max_queued_events", "max_groups", "max_marks",
	"max_cached_verdicts", "max_mutes", "max_persistent_groups",
};
#define FZ_NPARAMS (sizeof(fz_params) / sizeof(fz_params[0]))
static unsigned long long fz_param_saved[FZ_NPARAMS];

static struct fz_shared *sh;
static struct fz_proc *proc;	/* this worker's */
static atomic_int *quiet;	/* this worker's threads that are parked */

long fz_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

uint64_t fz_rand(struct fz *fz)
{
	/* xorshift64* */
	fz->rng ^= fz->rng >> 12;
	fz->rng ^= fz->rng << 25;
	fz->rng ^= fz->rng >> 27;
	return fz->rng * 0x2545F4914F6CDD1DULL;
}

static uint64_t fz_mix(uint64_t x)
{
	/* splitmix64: one seed per thread from the run's seed */
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return (x ^ (x >> 31)) | 1;
}

static void fz_vfail(struct fz_shared *s, const char *who, const char *fmt,
		     va_list ap)
{
	char msg[400], line[512];
	int n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (atomic_fetch_add(&s->failures, 1) == 0)
		snprintf(s->first_failure, sizeof(s->first_failure), "%s: %s",
			 who, msg);
	/* write(2), not stdio: a forked child may not take stdio's lock. */
	n = snprintf(line, sizeof(line), "# FAIL seed=%llu %s: %s\n",
		     (unsigned long long)s->seed, who, msg);
	if (write(STDOUT_FILENO, line, n) < 0)
		return;
}

void fz_fail(struct fz *fz, const char *fmt, ...)
{
	char who[64];
	va_list ap;

	if (fz->worker < 0)
		snprintf(who, sizeof(who), "the oracle");
	else if (fz->thread < 0)
		snprintf(who, sizeof(who), "worker %d at rest", fz->worker);
	else
		snprintf(who, sizeof(who), "worker %d thread %d op %s",
			 fz->worker, fz->thread, fz_ops[fz->op].name);
	va_start(ap, fmt);
	fz_vfail(fz->sh, who, fmt, ap);
	va_end(ap);
}

void fz_fail_shared(struct fz_shared *s, const char *fmt, ...)
{
	char who[32];
	va_list ap;

	snprintf(who, sizeof(who), "pid %d", getpid());
	va_start(ap, fmt);
	fz_vfail(s, who, fmt, ap);
	va_end(ap);
}

void fz_check(struct fz *fz, const char *what, long ret, const int *allowed)
{
	int err = errno;

	if (ret >= 0)
		return;
	if (fz->worker >= 0)
		atomic_fetch_add(&fz->sh->errors[fz->op], 1);
	for (; *allowed; allowed++)
		if (*allowed == err)
			return;
	fz_fail(fz, "%s: unexpected error %d (%s)", what, err, strerror(err));
}

int fz_slot_get(struct fz *fz, unsigned int *slot)
{
	unsigned int i = fz_below(fz, FZ_SLOTS), n;

	pthread_rwlock_rdlock(&fz->proc->slots_lock);
	for (n = 0; n < FZ_SLOTS; n++, i = (i + 1) % FZ_SLOTS) {
		if (fz->proc->slots[i] >= 0) {
			if (slot)
				*slot = i;
			return fz->proc->slots[i];
		}
	}
	pthread_rwlock_unlock(&fz->proc->slots_lock);
	return -1;
}

int fz_slot_get_with(struct fz *fz, unsigned int *slot, unsigned int flags)
{
	unsigned int i = fz_below(fz, FZ_SLOTS), n;

	pthread_rwlock_rdlock(&fz->proc->slots_lock);
	for (n = 0; n < FZ_SLOTS; n++, i = (i + 1) % FZ_SLOTS) {
		if (fz->proc->slots[i] >= 0 &&
		    (fz->proc->slot_flags[i] & flags) == flags) {
			*slot = i;
			return fz->proc->slots[i];
		}
	}
	pthread_rwlock_unlock(&fz->proc->slots_lock);
	return -1;
}

void fz_slot_put(struct fz *fz)
{
	pthread_rwlock_unlock(&fz->proc->slots_lock);
}

void fz_kid_add_locked(struct fz_proc *p, pid_t pid, enum fz_kid_kind kind)
{
	unsigned int i;

	for (i = 0; i < FZ_KIDS; i++) {
		if (!p->kids[i]) {
			p->kids[i] = pid;
			p->kind[i] = kind;
			return;
		}
	}
	/* No room: the child is reaped with the others at the next pause. */
}

/*
 * Reap children that ended (every one with @block), the adopted
 * grandchildren too (the worker is their subreaper), under kids_lock so
 * that a pid in the table is never one reaped already.
 */
void fz_kids_reap(struct fz_proc *p, bool block)
{
	unsigned int i;
	pid_t pid;

	pthread_mutex_lock(&p->kids_lock);
	while ((pid = waitpid(-1, NULL, block ? 0 : WNOHANG)) > 0) {
		for (i = 0; i < FZ_KIDS; i++)
			if (p->kids[i] == pid)
				p->kids[i] = 0;
	}
	pthread_mutex_unlock(&p->kids_lock);
}

pid_t fz_kid_pick(struct fz *fz, enum fz_kid_kind kind)
{
	struct fz_proc *p = fz->proc;
	unsigned int i = fz_below(fz, FZ_KIDS), n;
	pid_t pid = 0;

	pthread_mutex_lock(&p->kids_lock);
	for (n = 0; n < FZ_KIDS; n++, i = (i + 1) % FZ_KIDS) {
		if (p->kids[i] && p->kind[i] == kind) {
			pid = p->kids[i];
			/* Killed under the lock: it cannot be reaped meanwhile. */
			kill(pid, SIGKILL);
			break;
		}
	}
	pthread_mutex_unlock(&p->kids_lock);
	return pid;
}

pid_t fz_kid_peek(struct fz *fz)
{
	unsigned int i = fz_below(fz, FZ_KIDS);
	pid_t pid;

	pthread_mutex_lock(&fz->proc->kids_lock);
	pid = fz->proc->kids[i];
	pthread_mutex_unlock(&fz->proc->kids_lock);
	return pid;
}

int fz_kids_count(struct fz_proc *p, enum fz_kid_kind kind)
{
	unsigned int i;
	int n = 0;

	pthread_mutex_lock(&p->kids_lock);
	for (i = 0; i < FZ_KIDS; i++)
		n += p->kids[i] && p->kind[i] == kind;
	pthread_mutex_unlock(&p->kids_lock);
	return n;
}

static void fz_stash_flush(struct fz *fz)
{
	unsigned int i;

	for (i = 0; i < FZ_STASH; i++) {
		if (fz->stash_fd[i] >= 0)
			close(fz->stash_fd[i]);
		fz->stash_fd[i] = -1;
	}
}

/* Each operation's weight in this run (--only, --without), and their sum. */
static unsigned int fz_weight[FZ_OPS_MAX], fz_weights;

static unsigned int fz_pick_op(struct fz *fz)
{
	unsigned int i, r = fz_below(fz, fz_weights);

	for (i = 0; i < fz_nops; i++) {
		if (r < fz_weight[i])
			return i;
		r -= fz_weight[i];
	}
	return 0;
}

static void *fz_thread(void *arg)
{
	struct fz *fz = arg;
	unsigned int i;
	char name[16];

	snprintf(name, sizeof(name), "fz-w%dt%d", fz->worker, fz->thread);
	prctl(PR_SET_NAME, name);
	for (i = 0; i < FZ_STASH; i++)
		fz->stash_fd[i] = -1;
	fz->epfd = -1;
	for (;;) {
		if (atomic_load(&sh->pause) || atomic_load(&sh->stop)) {
			fz_stash_flush(fz);
			atomic_fetch_add(quiet, 1);
			while (atomic_load(&sh->pause) && !atomic_load(&sh->stop))
				usleep(10000);
			if (atomic_load(&sh->stop))
				break;
			atomic_fetch_sub(quiet, 1);
			continue;
		}
		fz->op = fz_pick_op(fz);
		atomic_fetch_add(&sh->calls[fz->op], 1);
		fz_ops[fz->op].run(fz);
	}
	if (fz->epfd >= 0)
		close(fz->epfd);
	return NULL;
}

static void fz_wait_for(atomic_int *v, int value)
{
	while (atomic_load(v) < value)
		usleep(10000);
}

/*
 * At rest, with no access in flight anywhere, every group's permission
 * events are accounted for: asked = answered + timedout + orphaned +
 * cancelled + perm_overflows + unopened + absent + pending, and none is
 * pending.
 */
static void fz_check_groups(struct fz *fz)
{
	struct fsgate_stats st;
	unsigned long long sum;
	unsigned int i;

	for (i = 0; i < FZ_SLOTS; i++) {
		if (proc->slots[i] < 0)
			continue;
		if (fsgate_stats(proc->slots[i], &st)) {
			fz_fail(fz, "stats of slot %u (fd %d): %s", i,
				proc->slots[i], strerror(errno));
			continue;
		}
		sum = st.answered + st.timedout + st.orphaned + st.cancelled +
		      st.perm_overflows + st.unopened + st.absent + st.pending;
		atomic_fetch_add(&sh->stats_checked, 1);
		if (st.asked != sum || st.pending)
			fz_fail(fz, "stats identity at rest: asked %llu, answered %llu + timedout %llu + orphaned %llu + cancelled %llu + perm_overflows %llu + unopened %llu + absent %llu + pending %llu = %llu",
				(unsigned long long)st.asked,
				(unsigned long long)st.answered,
				(unsigned long long)st.timedout,
				(unsigned long long)st.orphaned,
				(unsigned long long)st.cancelled,
				(unsigned long long)st.perm_overflows,
				(unsigned long long)st.unopened,
				(unsigned long long)st.absent,
				(unsigned long long)st.pending, sum);
		if (st.denied > st.answered)
			fz_fail(fz, "stats: denied %llu > answered %llu",
				(unsigned long long)st.denied,
				(unsigned long long)st.answered);
	}
}

/* Kill what must not outlive a pause and reap every descendant. */
static void fz_kids_end(void)
{
	unsigned int i;

	pthread_mutex_lock(&proc->kids_lock);
	for (i = 0; i < FZ_KIDS; i++)
		if (proc->kids[i] && proc->kind[i] != FZ_KID_ACCESS)
			kill(proc->kids[i], SIGKILL);
	pthread_mutex_unlock(&proc->kids_lock);
	/* Accessors end by themselves, each within its bound. */
	fz_kids_reap(proc, true);
}

static void fz_nothing(int sig)
{
	(void)sig;
}

static void fz_worker(int w)
{
	struct fz *fz = calloc(sh->threads, sizeof(*fz));
	pthread_t *tids = calloc(sh->threads, sizeof(*tids));
	struct fz main_fz = { .sh = sh, .worker = w, .thread = -1 };
	struct sigaction sa = { .sa_handler = fz_nothing };
	char name[16];
	int i, seen = 0;

	snprintf(name, sizeof(name), "fz-worker%d", w);
	prctl(PR_SET_NAME, name);
	/* SIGUSR1 interrupts a blocking read (no SA_RESTART). */
	sigaction(SIGUSR1, &sa, NULL);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	quiet = &sh->quiet[w];
	proc = calloc(1, sizeof(*proc));
	if (!fz || !tids || !proc)
		exit(1);
	pthread_rwlock_init(&proc->slots_lock, NULL);
	pthread_mutex_init(&proc->kids_lock, NULL);
	proc->worker = w;
	/*
	 * Opened once: a later open could be denied by a fuzzed group
	 * watching devtmpfs, and groups are made with the bare ioctl.
	 */
	proc->dev = open("/dev/fsgate", O_RDWR | O_CLOEXEC);
	if (proc->dev < 0) {
		fz_fail_shared(sh, "open /dev/fsgate: %s", strerror(errno));
		exit(1);
	}
	for (i = 0; i < FZ_SLOTS; i++)
		proc->slots[i] = -1;
	main_fz.proc = proc;
	for (i = 0; i < sh->threads; i++) {
		fz[i] = (struct fz){
			.rng = fz_mix(sh->seed ^ ((uint64_t)w << 32) ^ i),
			.sh = sh, .proc = proc, .worker = w, .thread = i,
		};
		pthread_create(&tids[i], NULL, fz_thread, &fz[i]);
	}
	for (;;) {
		/*
		 * The next pause, by its number: waiting for @pause to drop
		 * and rise again missed the final pause when it came at once
		 * (fz_pause()), and the worker slept through it for good.
		 * A thread that missed the resume the same way is quiet still,
		 * as it should be.
		 */
		while (atomic_load(&sh->pause_seq) == seen)
			usleep(20000);
		seen = atomic_load(&sh->pause_seq);
		atomic_store(&sh->seen[w], seen);
		atomic_store(&sh->stage[w], FZ_STAGE_THREADS);
		fz_wait_for(quiet, sh->threads);
		atomic_store(&sh->stage[w], FZ_STAGE_KIDS);
		fz_kids_end();
		/*
		 * No persistent group outlives a pause-free period: the
		 * module must unload after the run, and each pause begins
		 * with none but the oracle's.
		 */
		fz_persist_cleanup(&main_fz);
		atomic_store(&sh->stage[w], FZ_STAGE_PARKED);
		atomic_fetch_add(&sh->parked, 1);
		fz_wait_for(&sh->parked, sh->procs);
		atomic_store(&sh->stage[w], FZ_STAGE_CHECK);
		fz_check_groups(&main_fz);
		atomic_store(&sh->stage[w], FZ_STAGE_RUN);
		atomic_fetch_add(&sh->checked, 1);
		if (atomic_load(&sh->stop))
			break;
	}
	for (i = 0; i < sh->threads; i++)
		pthread_join(tids[i], NULL);
	for (i = 0; i < FZ_SLOTS; i++)
		if (proc->slots[i] >= 0)
			close(proc->slots[i]);
	exit(0);
}

/*
 * What every process is doing, for a run whose workers will not quiesce:
 * each user process (and any zombie, and any kernel thread in D) on one
 * line (comm, state, wchan, parent), then each of a live one's threads
 * with its kernel stack, every line starting "# /proc/" so that
 * tests/check shows them. The fuzzer's processes are named by what they
 * are (fz_fork(), fz_worker()).
 */
static void fz_dump_tasks(void)
{
	static const char cmd[] =
		"for p in /proc/[0-9]*; do "
		"c=$(tr -d '\\0' <$p/cmdline 2>/dev/null); "
		"s=$(cut -d' ' -f3 $p/stat 2>/dev/null); "
		"[ -n \"$c\" ] || [ \"$s\" = D ] || [ \"$s\" = Z ] || continue; "
		"echo \"# $p $(cat $p/comm 2>/dev/null) $s $(cat $p/wchan 2>/dev/null) ppid $(cut -d' ' -f4 $p/stat 2>/dev/null)\"; "
		"[ \"$s\" = Z ] && continue; "
		"for t in $p/task/[0-9]*; do "
		"echo \"# $t $(cat $t/comm 2>/dev/null) $(cut -d' ' -f3 $t/stat 2>/dev/null) $(cat $t/wchan 2>/dev/null)\"; "
		"sed \"s|^|# $t |\" $t/stack 2>/dev/null; "
		"done; done";

	fflush(stdout);
	if (system(cmd) < 0)
		perror("system");
}

/* A line at each pause, so that a run cut short still says how far it got. */
static void fz_progress(void)
{
	unsigned long total = 0;
	unsigned int i;

	for (i = 0; i < fz_nops; i++)
		total += sh->calls[i];
	printf("# pause %d: %lu calls, %lu accesses, %lu stats identities checked, %d failures\n",
	       atomic_load(&sh->pauses), total, (unsigned long)sh->accesses,
	       (unsigned long)sh->stats_checked, atomic_load(&sh->failures));
}

/* Where each worker is in the pause: which wait of fz_worker()'s. */
static const char *fz_stages(char *buf, size_t len)
{
	static const char *const waits[] = {
		[FZ_STAGE_RUN] = "is done",
		[FZ_STAGE_THREADS] = "waits for its threads",
		[FZ_STAGE_KIDS] = "waits for its children",
		[FZ_STAGE_PARKED] = "waits for the others",
		[FZ_STAGE_CHECK] = "checks its groups",
	};
	int w, stage, seq = atomic_load(&sh->pause_seq);
	size_t n = 0;

	buf[0] = 0;
	for (w = 0; w < sh->procs && n < len; w++) {
		stage = atomic_load(&sh->stage[w]);
		if (stage == FZ_STAGE_RUN && atomic_load(&sh->seen[w]) != seq)
			n += snprintf(buf + n, len - n, "%sworker %d never began pause %d",
				      w ? "; " : "", w, seq);
		else if (stage == FZ_STAGE_THREADS)
			n += snprintf(buf + n, len - n, "%sworker %d %s (%d of %d parked)",
				      w ? "; " : "", w, waits[stage],
				      atomic_load(&sh->quiet[w]), sh->threads);
		else
			n += snprintf(buf + n, len - n, "%sworker %d %s",
				      w ? "; " : "", w, waits[stage]);
	}
	return buf;
}

/*
 * Quiesce every worker, let them check, resume; false if they never did.
 * The final pause comes right after a periodic one that ended past the
 * duration: the workers start each pause by its number, @pause_seq.
 */
static bool fz_pause(bool last)
{
	long deadline = fz_now_ms() + sh->bound_ms + 120000;
	char buf[256];

	atomic_store(&sh->parked, 0);
	atomic_store(&sh->checked, 0);
	if (last)
		atomic_store(&sh->stop, 1);
	atomic_store(&sh->pause, 1);
	/* Last: a worker that sees the new number sees the rest set. */
	atomic_fetch_add(&sh->pause_seq, 1);
	while (atomic_load(&sh->checked) < sh->procs) {
		if (fz_now_ms() > deadline) {
			fz_fail_shared(sh, "the workers did not quiesce within %ld ms (an access or an operation is stuck): %s",
				       sh->bound_ms + 120000, fz_stages(buf, sizeof(buf)));
			fz_dump_tasks();
			return false;
		}
		usleep(20000);
	}
	atomic_fetch_add(&sh->pauses, 1);
	fz_progress();
	if (!last)
		atomic_store(&sh->pause, 0);
	return true;
}

static int fz_setup(void)
{
	struct fsgate_version v;
	unsigned int i;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		perror("fsgate-fuzz: a mount namespace");
		return -1;
	}
	snprintf(sh->root, sizeof(sh->root), "/tmp/fsgate-fuzz.%d", getpid());
	if (mkdir(sh->root, 0755) ||
	    mount("fuzz", sh->root, "tmpfs", 0, "size=64m")) {
		perror("fsgate-fuzz: the scratch tmpfs");
		return -1;
	}
	fz_tree_make(sh->root);
	if (fz_overlay_mount(sh->root)) {
		perror("fsgate-fuzz: the overlay over v/");
		return -1;
	}
	if (chdir(sh->root))
		return -1;
	if (fsgate_version(&v)) {
		perror("fsgate-fuzz: FSGATE_IOC_VERSION");
		return -1;
	}
	sh->features = v.features;
	for (i = 0; i < FZ_NPARAMS; i++) {
		if (fsgate_param_get(fz_params[i], &fz_param_saved[i])) {
			perror("fsgate-fuzz: the module's parameters (is fsgate.ko loaded?)");
			return -1;
		}
	}
	/*
	 * Every wait is bounded by FZ_TIMEOUT_MAX_MS per group; the daemons'
	 * groups without a timeout live a few seconds.
	 */
	return fsgate_param_set("default_timeout_ms", 1000) ||
	       fsgate_param_set("allow_unbounded_waits", 1);
}

static void fz_teardown(void)
{
	unsigned int i;

	for (i = 0; i < FZ_NPARAMS; i++)
		if (fsgate_param_set(fz_params[i], fz_param_saved[i]))
			fz_fail_shared(sh, "restoring %s: %s", fz_params[i],
				       strerror(errno));
	if (chdir("/") == 0)
		umount2(sh->root, MNT_DETACH);
	rmdir(sh->root);
}

/*
 * Every operation kind that ran FZ_OK_FLOOR_CALLS times must have done
 * what it is for at least once: one that always fails (a refused call
 * the ABI should take, a process that never starts, a group that never
 * has events to answer) would test nothing while it looked covered.
 * And the oracle must have been asked and refused opens of its files.
 */
static void fz_floors(void)
{
	unsigned int i;

	for (i = 0; i < fz_nops; i++)
		if (sh->calls[i] >= FZ_OK_FLOOR_CALLS && !sh->oks[i])
			fz_fail_shared(sh, "operation %s ran %lu times and never worked (%lu failed as allowed)",
				       fz_ops[i].name, (unsigned long)sh->calls[i],
				       (unsigned long)sh->errors[i]);
	if (sh->accesses >= 200 && (!sh->oracle_denied || !sh->oracle_refused))
		fz_fail_shared(sh, "the oracle was not exercised: %lu denies answered, %lu opens of deny-* files refused",
			       (unsigned long)sh->oracle_denied,
			       (unsigned long)sh->oracle_refused);
}

/*
 * How many words of @argv (argv[0] on) give the seed: 2 for "--seed N",
 * "-s N" or an abbreviation getopt_long() takes ("--se N"), 1 for
 * "--seed=N" or "-sN", 0 for any other word.
 */
static unsigned int fz_seed_args(char **argv)
{
	const char *a = argv[0];
	size_t n;

	if (!strcmp(a, "-s"))
		return argv[1] ? 2 : 1;
	if (!strncmp(a, "-s", 2))
		return 1;
	if (strncmp(a, "--", 2))
		return 0;
	a += 2;
	n = strcspn(a, "=");
	if (!n || strncmp(a, "seed", n) || n > 4)
		return 0;
	return a[n] == '=' || !argv[1] ? 1 : 2;
}

static void fz_report(long ms, int argc, char **argv)
{
	unsigned long total = 0, errs = 0;
	unsigned int i, n, covered = 0, enabled = 0;

	fz_floors();
	printf("# %-18s %10s %10s %10s\n", "operation", "calls", "failed ok",
	       "worked");
	for (i = 0; i < fz_nops; i++) {
		total += sh->calls[i];
		errs += sh->errors[i];
		covered += sh->calls[i] > 0;
		enabled += fz_weight[i] > 0;
		printf("# %-18s %10lu %10lu %10lu\n", fz_ops[i].name,
		       (unsigned long)sh->calls[i],
		       (unsigned long)sh->errors[i],
		       (unsigned long)sh->oks[i]);
	}
	printf("# oracle: %lu answers (%lu denies), %lu opens of deny-* files refused\n",
	       (unsigned long)sh->oracle_asked, (unsigned long)sh->oracle_denied,
	       (unsigned long)sh->oracle_refused);
	printf("# persistent groups: %lu made (%lu ENOSPC, %lu EPERM for uid 65534), %lu removed; %lu events left unanswered on a closed fd, %lu of them read again by id; %lu answers through another fd refused; %lu attached readers killed\n",
	       (unsigned long)sh->persist_made, (unsigned long)sh->persist_enospc,
	       (unsigned long)sh->persist_eperm,
	       (unsigned long)sh->persist_removed,
	       (unsigned long)sh->rereport_kept, (unsigned long)sh->rereport_seen,
	       (unsigned long)sh->cross_fd_refused,
	       (unsigned long)sh->attached_killed);
	printf("# oracle persistent: %lu groups, %lu times away, %lu handovers, %lu events re-reported to it\n",
	       (unsigned long)sh->oracle_persisted,
	       (unsigned long)sh->oracle_away,
	       (unsigned long)sh->oracle_handovers,
	       (unsigned long)sh->oracle_rereported);
	printf("# local users: %lu events on FUSE (O_PATH), %lu event fds uid 65534 may open, %lu accesses through the overlay\n",
	       (unsigned long)sh->fuse_events, (unsigned long)sh->nobody_fds,
	       (unsigned long)sh->overlay_accesses);
	printf("# seed %llu, %ld s, %d processes x %d threads: %lu calls (%lu failed as allowed), %u of %u operation kinds; %lu accesses (%lu denied, %lu killed), longest wait %lu ms of %ld allowed; %d pauses, %lu stats identities checked\n",
	       (unsigned long long)sh->seed, ms / 1000, sh->procs, sh->threads,
	       total, errs, covered, enabled,
	       (unsigned long)sh->accesses, (unsigned long)sh->access_denied,
	       (unsigned long)sh->access_killed,
	       (unsigned long)sh->long_wait_ms, sh->bound_ms,
	       atomic_load(&sh->pauses), (unsigned long)sh->stats_checked);
	if (covered < enabled)
		for (i = 0; i < fz_nops; i++)
			if (fz_weight[i] && !sh->calls[i])
				printf("# never ran: %s\n", fz_ops[i].name);
	printf("%s 1 fsgate-fuzz seed %llu\n", sh->failures ? "not ok" : "ok",
	       (unsigned long long)sh->seed);
	if (!sh->failures)
		return;
	printf("# %d failures; the first: %s\n# replay:", sh->failures,
	       sh->first_failure);
	/* The command as given, with the run's seed in place of any given. */
	for (i = 0; i < (unsigned int)argc; i += n) {
		n = fz_seed_args(argv + i);
		if (!n) {
			printf(" %s", argv[i]);
			n = 1;
		}
	}
	printf(" --seed %llu\n", (unsigned long long)sh->seed);
}

/*
 * --only NAME,... keeps those operations, --without NAME,... drops them
 * (as many of either as given, in order); 0, or -1 for an unknown name.
 */
static int fz_select(char *list, bool only)
{
	static bool narrowed;
	char *name, *save = NULL;
	unsigned int i;

	if (only && !narrowed) {
		narrowed = true;
		memset(fz_weight, 0, sizeof(fz_weight));
	}
	for (name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < fz_nops && strcmp(fz_ops[i].name, name); i++)
			;
		if (i == fz_nops) {
			fprintf(stderr, "fsgate-fuzz: no operation '%s' (see --list)\n", name);
			return -1;
		}
		fz_weight[i] = only ? fz_ops[i].weight : 0;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fsgate-fuzz [--seed N] [--duration SEC] [--procs N] [--threads N]\n"
		"                   [--pause SEC] [--only OP,...] [--without OP,...] [--list]\n"
		"Random, mostly valid operations on fsgate from several processes and\n"
		"threads: groups of every class, FID mode and info record, marks with\n"
		"ignore and evictable flags, reads, answers by fd and by id, extended,\n"
		"audited, filters, mutes, cache flushes, parameters; accessors, killed;\n"
		"daemons; an unprivileged lease holder, a FUSE server that never answers\n"
		"an open (" FZ_STALLFS "), a group fd held by uid 65534, an overlay.\n"
		"Checks every errno, every record (metadata, info records, file\n"
		"handles), every event fd (O_PATH on FUSE, openable by its reader),\n"
		"every wait and read against its bound, the stats identity at rest;\n"
		"that each operation kind run %d times or more worked at least once;\n"
		"and the verdict oracle: a scripted group denies v/deny-* (and ov/ over\n"
		"it) whatever happens to it, and no open of them may work.\n"
		"Prints TAP. The seed fixes each thread's sequence of operations (the\n"
		"interleaving of threads is the scheduler's); --only and --without\n"
		"narrow the operations (--list names them, with their weights).\n",
		FZ_OK_FLOOR_CALLS);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "pause", required_argument, NULL, 'P' },
		{ "list", no_argument, NULL, 'l' },
		{ "only", required_argument, NULL, 'o' },
		{ "without", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	long duration = 60, pause_s = 15, t0, next;
	int procs = 3, threads = 3, c, w, status;
	uint64_t seed = 0;
	bool seeded = false, ok = true;
	pid_t *pids, oracle;
	unsigned int i;

	for (i = 0; i < fz_nops; i++)
		fz_weight[i] = fz_ops[i].weight;
	while ((c = getopt_long(argc, argv, "s:d:p:t:P:lo:w:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); seeded = true; break;
		case 'd': duration = atol(optarg); break;
		case 'p': procs = atoi(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 'P': pause_s = atol(optarg); break;
		case 'l':
			for (i = 0; i < fz_nops; i++)
				printf("%s %u\n", fz_ops[i].name, fz_ops[i].weight);
			return 0;
		case 'o':
		case 'w':
			/* A copy: strtok_r() must not cut the replay's argv. */
			if (fz_select(strdup(optarg), c == 'o'))
				return 2;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	for (i = 0; i < fz_nops; i++)
		fz_weights += fz_weight[i];
	if (optind != argc || !fz_weights || duration < 1 || procs < 1 ||
	    procs > FZ_PROCS_MAX ||
	    threads < 1 || threads > 16 || pause_s < 1) {
		usage(stderr);
		return 2;
	}
	if (!seeded)
		seed = fz_mix((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	sh->seed = seed;
	sh->procs = procs;
	sh->threads = threads;
	/* Every group an access could meet, each at its longest, and slack. */
	/* ... and the oracle's; a FUSE server holds an open until it dies. */
	sh->bound_ms = ((long)procs * (FZ_SLOTS + FZ_DAEMONS) + 1) *
		       FZ_TIMEOUT_MAX_MS + FZ_HOLDER_LIFE_S * 1000 + 30000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..1\n# fsgate-fuzz --seed %llu --duration %ld --procs %d --threads %d\n",
	       (unsigned long long)seed, duration, procs, threads);
	if (fz_setup())
		return 1;
	printf("# module features 0x%llx\n", (unsigned long long)sh->features);
	/* The oracle's group is there before any access. */
	oracle = fork();
	if (oracle == 0)
		fz_oracle_main(sh);
	while (oracle > 0 && !atomic_load(&sh->oracle_ready))
		usleep(10000);
	if (oracle < 0 || atomic_load(&sh->oracle_ready) < 0) {
		fz_teardown();
		fz_report(0, argc, argv);
		return 1;
	}
	pids = calloc(procs, sizeof(*pids));
	for (w = 0; w < procs; w++) {
		pids[w] = fork();
		if (pids[w] == 0)
			fz_worker(w);
	}
	t0 = fz_now_ms();
	next = t0 + pause_s * 1000;
	while (ok && fz_now_ms() - t0 < duration * 1000) {
		usleep(50000);
		if (fz_now_ms() >= next) {
			ok = fz_pause(false);
			next = fz_now_ms() + pause_s * 1000;
		}
	}
	if (ok)
		ok = fz_pause(true);
	for (w = 0; w < procs; w++) {
		if (!ok)
			kill(pids[w], SIGKILL);
		if (waitpid(pids[w], &status, 0) == pids[w] &&
		    !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			fz_fail_shared(sh, "worker %d ended with status 0x%x", w,
				       status);
	}
	atomic_store(&sh->oracle_stop, 1);
	if (waitpid(oracle, &status, 0) == oracle &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		fz_fail_shared(sh, "the oracle ended with status 0x%x", status);
	fz_teardown();
	fz_report(fz_now_ms() - t0, argc, argv);
	return sh->failures ? 1 : 0;
}
