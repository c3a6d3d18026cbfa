// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count: a QEMU TCG plugin that counts the guest's executed
 * instructions, in total and per translation block (TB) start address in
 * the kernel (vaddr >= 0xffffffff80000000, the x86-64 kernel text map).
 * TCG has no PMU; this is our instruction counter.
 *
 *   qemu-system-x86_64 -plugin build/insn-count.so,out=FILE ...
 *
 * FILE gets, each time the guest executes the marker instruction (see
 * MARK below and scripts/instruments/insn-mark.c), a window: what ran since the
 * previous marker (or since start-up),
 *
 *   mark K total N        N instructions executed in window K, user and kernel
 *   ADDR COUNT EXECS      per kernel TB start address (hex): its instructions
 *   ...                   and how many times it ran, in the window, only
 *                         those that ran
 *
 * and at exit the whole run:
 *
 *   total N
 *   ADDR COUNT EXECS
 *   ...
 *
 * Each TB gets inline ADD_U64 ops: n_insns into the total, and (kernel
 * TBs) n_insns and 1 into counters of its own start address. The adds run
 * at the TB's entry, so a TB left early (interrupt, exception) counts
 * whole; a TB ends at every branch, so its start address names the
 * function its instructions belong to, and the runs of the TB at a
 * function's first instruction count its calls. A TB translated again
 * (cache flush, different flags, icount I/O recompile) finds its
 * address's counters in a hash table and shares them.
 *
 * The adds are plain read-modify-writes, not atomic: guests run with ONE
 * vCPU when counting (insn-count.sh boots with GUEST_CPUS=1 and -icount,
 * which also makes TCG single-threaded), so they cannot race. The plugin
 * refuses to load for more than one vCPU.
 *
 * Written against plugin API version 1 as QEMU 7.2 ships it. Debian's
 * QEMU packages carry no qemu-plugin.h, so the few entry points used are
 * declared below; they follow include/qemu/qemu-plugin.h of QEMU 7.2.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- from include/qemu/qemu-plugin.h, QEMU 7.2 (API version 1) ---- */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
#define QEMU_PLUGIN_VERSION 1

typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);
/* ---- end of the API declarations ---- */

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define KERNEL_BASE 0xffffffff80000000ULL

/*
 * The window marker: "nopl 0x4d485442(%rax,%rax,1)" ("BTHM" in the
 * displacement), a no-op no compiler emits (their padding nops have a
 * zero displacement). scripts/instruments/insn-mark.c executes it; any process may.
 */
static const unsigned char MARK[] = {
	0x0f, 0x1f, 0x84, 0x00, 0x42, 0x54, 0x48, 0x4d
};

struct counter {
	uint64_t addr;
	uint64_t count;		/* instructions: an inline add's target */
	uint64_t execs;		/* runs of the TB: the other's */
	uint64_t at_mark;	/* count at the last marker */
	uint64_t execs_at_mark;
};

/*
 * Counters live in chunks that never move (the inline ops hold their
 * addresses); the hash table of pointers to them may grow.
 */
#define CHUNK 4096
struct chunk {
	struct chunk *next;
	size_t used;
	struct counter c[CHUNK];
};

static struct chunk *chunks;
static struct counter **table;
static size_t table_size, nr_counters;
static uint64_t total, total_at_mark;
static unsigned int marks;
static FILE *out;
/* translation could in principle run on several threads; it is rare */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot(uint64_t addr, size_t size)
{
	/* kernel text addresses differ in their low bits: mix, then mask */
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 20) & (size - 1);
}

static void table_grow(void)
{
	size_t size = table_size ? table_size * 2 : 1 << 16;
	struct counter **t = calloc(size, sizeof(*t));

	if (!t) {
		perror("insn-count");
		abort();
	}
	for (size_t i = 0; i < table_size; i++) {
		size_t j;

		if (!table[i])
			continue;
		for (j = slot(table[i]->addr, size); t[j]; j = (j + 1) & (size - 1))
			;
		t[j] = table[i];
	}
	free(table);
	table = t;
	table_size = size;
}

/* the counter of TB start address ADDR, made on first sight */
static struct counter *counter_of(uint64_t addr)
{
	struct counter *c;
	size_t i;

	if (2 * (nr_counters + 1) > table_size)
		table_grow();
	for (i = slot(addr, table_size); table[i]; i = (i + 1) & (table_size - 1))
		if (table[i]->addr == addr)
			return table[i];
	if (!chunks || chunks->used == CHUNK) {
		struct chunk *ch = calloc(1, sizeof(*ch));

		if (!ch) {
			perror("insn-count");
			abort();
		}
		ch->next = chunks;
		chunks = ch;
	}
	c = &chunks->c[chunks->used++];
	c->addr = addr;
	table[i] = c;
	nr_counters++;
	return c;
}

/*
 * The marker ran: write the window since the last one. Called on the
 * (only) vCPU's thread between two instructions, so the counters hold
 * still while we read them.
 */
static void on_mark(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	pthread_mutex_lock(&lock);
	fprintf(out, "mark %u total %llu\n", ++marks,
		(unsigned long long)(total - total_at_mark));
	total_at_mark = total;
	for (struct chunk *ch = chunks; ch; ch = ch->next)
		for (size_t i = 0; i < ch->used; i++) {
			struct counter *c = &ch->c[i];

			if (c->count == c->at_mark)
				continue;
			fprintf(out, "%llx %llu %llu\n",
				(unsigned long long)c->addr,
				(unsigned long long)(c->count - c->at_mark),
				(unsigned long long)(c->execs - c->execs_at_mark));
			c->at_mark = c->count;
			c->execs_at_mark = c->execs;
		}
	fflush(out);
	pthread_mutex_unlock(&lock);
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct qemu_plugin_insn *first;
	uint64_t addr;

	(void)id;
	if (!n)
		return;
	first = qemu_plugin_tb_get_insn(tb, 0);
	addr = qemu_plugin_insn_vaddr(first);

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &total, n);
	if (addr >= KERNEL_BASE) {
		struct counter *c;

		pthread_mutex_lock(&lock);
		c = counter_of(addr);
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
				QEMU_PLUGIN_INLINE_ADD_U64, &c->count, n);
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
				QEMU_PLUGIN_INLINE_ADD_U64, &c->execs, 1);
		pthread_mutex_unlock(&lock);
		return;
	}
	/* the marker is user space code: look for it in user TBs only */
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(MARK) &&
		    !memcmp(qemu_plugin_insn_data(insn), MARK, sizeof(MARK)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
					QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	pthread_mutex_lock(&lock);
	fprintf(out, "total %llu\n", (unsigned long long)total);
	for (struct chunk *ch = chunks; ch; ch = ch->next)
		for (size_t i = 0; i < ch->used; i++)
			if (ch->c[i].count)
				fprintf(out, "%llx %llu %llu\n",
					(unsigned long long)ch->c[i].addr,
					(unsigned long long)ch->c[i].count,
					(unsigned long long)ch->c[i].execs);
	fclose(out);
	out = NULL;
	pthread_mutex_unlock(&lock);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *file = NULL;
	char msg[256];

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			file = argv[i] + 4;
		} else {
			snprintf(msg, sizeof(msg), "insn-count: unknown argument %s\n",
				 argv[i]);
			qemu_plugin_outs(msg);
			return -1;
		}
	}
	if (!file) {
		qemu_plugin_outs("insn-count: usage: -plugin insn-count.so,out=FILE\n");
		return -1;
	}
	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		qemu_plugin_outs("insn-count: only for qemu-system-x86_64\n");
		return -1;
	}
	/* the inline adds would race between vCPU threads (see the top) */
	if (info->system.max_vcpus != 1) {
		qemu_plugin_outs("insn-count: needs a guest with exactly one vCPU\n");
		return -1;
	}
	out = fopen(file, "w");
	if (!out) {
		snprintf(msg, sizeof(msg), "insn-count: cannot write %s\n", file);
		qemu_plugin_outs(msg);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
}
