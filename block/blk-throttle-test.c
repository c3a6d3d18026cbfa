// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for blk-throttle's token-bucket arithmetic: the pure
 * functions in blk-throttle.h that decide how long a throttled bio waits.
 * They need no device: every test drives a bucket with made-up times.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/time64.h>
#include "blk-throttle.h"

/*
 * In u64: NSEC_PER_SEC is a long, 32 bits on 32-bit machines, where
 * 10 * NSEC_PER_SEC would overflow. And u64 division is div_u64() there.
 */
#define MS	((u64)NSEC_PER_MSEC)
#define SEC	((u64)NSEC_PER_SEC)
#define DAY	(86400 * SEC)

/*
 * Dispatch @n bios of @cost back to back from @start, each as soon as the
 * bucket allows, as the pending timer would. Returns when the last went;
 * *@free counts those that went without waiting.
 */
static u64 drive(u64 *vtime, u64 cost, u64 start, unsigned int n,
		 unsigned int *free)
{
	u64 now = start, wait;
	unsigned int i;

	*free = 0;
	*vtime = throtl_bucket_refill(*vtime, now);
	for (i = 0; i < n; i++) {
		wait = throtl_bucket_wait(*vtime, cost, now);
		if (!wait)
			(*free)++;
		now += wait;
		*vtime = throtl_bucket_charge(*vtime, cost, now);
	}
	return now;
}

static void throtl_cost_test(struct kunit *test)
{
	/* IOPS that do not divide a second, and HZ-independent ones */
	KUNIT_EXPECT_EQ(test, throtl_cost_ns(1, 100), 10 * MS);
	KUNIT_EXPECT_EQ(test, throtl_cost_ns(1, 37), 27027028ULL);
	KUNIT_EXPECT_EQ(test, throtl_cost_ns(1, 333), 3003004ULL);
	KUNIT_EXPECT_EQ(test, throtl_cost_ns(1, 1000), 1 * MS);
	/* bytes: 4 KiB at 1 KiB/s, 1 MiB at 256 KiB/s, 4 KiB at 100 GiB/s */
	KUNIT_EXPECT_EQ(test, throtl_cost_ns(4096, 1024), 4 * SEC);
	KUNIT_EXPECT_EQ(test, throtl_cost_ns(SZ_1M, SZ_256K), 4 * SEC);
	KUNIT_EXPECT_EQ(test, throtl_cost_ns(4096, 100ULL * SZ_1G), 39ULL);
	/* rounded up: never faster than the limit, never free */
	KUNIT_EXPECT_EQ(test, throtl_cost_ns(1, U64_MAX - 1), 1ULL);
	KUNIT_EXPECT_EQ(test, throtl_cost_ns(1, UINT_MAX), 1ULL);
	/* the largest bio at the smallest rate fits in 64 bits */
	KUNIT_EXPECT_EQ(test, throtl_cost_ns(UINT_MAX, 1), UINT_MAX * SEC);
	/* and what does not fit saturates instead of wrapping */
	KUNIT_EXPECT_EQ(test, throtl_cost_ns(U64_MAX, 1), U64_MAX);
}

static void throtl_mul_div_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, throtl_mul_div(10, 3, 4, false), 7ULL);
	KUNIT_EXPECT_EQ(test, throtl_mul_div(10, 3, 4, true), 8ULL);
	KUNIT_EXPECT_EQ(test, throtl_mul_div(U64_MAX, U64_MAX, U64_MAX, false),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, throtl_mul_div(U64_MAX - 1, 2, 3, false),
			12297829382473034409ULL);
	KUNIT_EXPECT_EQ(test, throtl_mul_div(1ULL << 40, 1ULL << 40, 1, false),
			U64_MAX);
}

/*
 * @n bios of @amount at @rate, back to back from a full bucket, take the
 * time the rate says (n * amount / rate) less one bucket: within 1% and
 * one bio's cost, whatever the rate.
 */
static void expect_rate(struct kunit *test, u64 amount, u64 rate,
			unsigned int n)
{
	u64 cost = throtl_cost_ns(amount, rate), start = 5 * SEC, vtime = 0;
	u64 ideal = throtl_mul_div(n * amount, SEC, rate, false);
	u64 slack = div_u64(ideal, 100) + cost;
	unsigned int free;
	u64 took;

	took = drive(&vtime, cost, start, n, &free) - start + THROTL_BUCKET_NS;
	KUNIT_EXPECT_LE_MSG(test, took, ideal + slack,
			    "%llu x %llu at %llu/s", (u64)n, amount, rate);
	KUNIT_EXPECT_GE_MSG(test, took + slack, ideal,
			    "%llu x %llu at %llu/s", (u64)n, amount, rate);
}

/* A paced group gets its rate, for rates that do not divide a second too. */
static void throtl_rate_test(struct kunit *test)
{
	static const u64 iops[] = { 1, 37, 100, 333, 1000, 100000 };
	static const u64 bps[] = { SZ_1K, SZ_1M, 10 * SZ_1M, 333333 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(iops); i++)
		expect_rate(test, 1, iops[i], 10000);
	for (i = 0; i < ARRAY_SIZE(bps); i++)
		expect_rate(test, SZ_4K, bps[i], 10000);
	/* 100 GiB/s, in 1 MiB bios: 9.77us each */
	expect_rate(test, SZ_1M, 100ULL * SZ_1G, 100000);
}

/* After idle, a group bursts one depth of its rate, and no more. */
static void throtl_depth_test(struct kunit *test)
{
	unsigned int free;
	u64 vtime = 0;

	/* riops=100: a 100 ms bucket holds 10 IOs */
	drive(&vtime, throtl_cost_ns(1, 100), 10 * SEC, 50, &free);
	KUNIT_EXPECT_EQ(test, free, 10U);

	/* rbps=1 MiB/s, 4 KiB bios: 25.6 of them, so 25 go at once */
	vtime = 0;
	drive(&vtime, throtl_cost_ns(4096, SZ_1M), 10 * SEC, 100, &free);
	KUNIT_EXPECT_EQ(test, free, 25U);

	/*
	 * riops=5: the bucket holds half an IO, so even after idle the first
	 * IO waits for the other half (100 ms), and each next one 200 ms.
	 */
	vtime = 0;
	KUNIT_EXPECT_EQ(test, drive(&vtime, throtl_cost_ns(1, 5), 10 * SEC, 3, &free),
			10 * SEC + 500 * MS);
	KUNIT_EXPECT_EQ(test, free, 0U);
}

/* An idle bucket refills up to its depth, however long the idle. */
static void throtl_refill_test(struct kunit *test)
{
	u64 now = 30 * DAY;

	KUNIT_EXPECT_EQ(test, throtl_bucket_refill(0, now), now - THROTL_BUCKET_NS);
	KUNIT_EXPECT_EQ(test, throtl_bucket_refill(now - MS, now), now - MS);
	/* debt survives idle until it is paid */
	KUNIT_EXPECT_EQ(test, throtl_bucket_refill(now + SEC, now), now + SEC);
	/* early in boot, before one depth has passed */
	KUNIT_EXPECT_EQ(test, throtl_bucket_refill(0, MS), 0ULL);
}

/*
 * A bio larger than the bucket waits for its whole cost less the depth,
 * then the bucket is empty: the right average rate, no stall.
 */
static void throtl_big_bio_test(struct kunit *test)
{
	u64 cost = throtl_cost_ns(SZ_1M, SZ_256K);	/* 4 s */
	u64 now = 100 * SEC, vtime, wait;

	vtime = throtl_bucket_refill(0, now);
	wait = throtl_bucket_wait(vtime, cost, now);
	KUNIT_EXPECT_EQ(test, wait, cost - THROTL_BUCKET_NS);
	/* asked again while waiting, the answer holds: no restart */
	KUNIT_EXPECT_EQ(test, throtl_bucket_wait(vtime, cost, now + SEC), wait - SEC);
	now += wait;
	vtime = throtl_bucket_charge(vtime, cost, now);
	KUNIT_EXPECT_EQ(test, vtime, now);
	/* the next one waits its whole cost */
	KUNIT_EXPECT_EQ(test, throtl_bucket_wait(vtime, cost, now), cost);
}

/* Never a zero wait for a bio that cannot go, never a negative one. */
static void throtl_wait_test(struct kunit *test)
{
	u64 now = DAY;

	KUNIT_EXPECT_EQ(test, throtl_bucket_wait(now, 1, now), 1ULL);
	KUNIT_EXPECT_EQ(test, throtl_bucket_wait(now - 1, 1, now), 0ULL);
	KUNIT_EXPECT_EQ(test, throtl_bucket_wait(0, 10 * MS, now), 0ULL);
	/* huge debt saturates, it does not wrap into a free pass */
	KUNIT_EXPECT_EQ(test, throtl_bucket_wait(U64_MAX - 5, 10, now),
			U64_MAX - now);
}

/* Debt from a bio that had to go unthrottled is paid by the next ones. */
static void throtl_debt_test(struct kunit *test)
{
	u64 cost = throtl_cost_ns(1, 100), now = 10 * SEC;
	u64 vtime = throtl_bucket_refill(0, now);
	unsigned int i;

	for (i = 0; i < 30; i++)
		vtime = throtl_bucket_charge(vtime, cost, now);
	/* 30 IOs at once against a 10 IO bucket: 20 owed, 200 ms */
	KUNIT_EXPECT_EQ(test, throtl_bucket_wait(vtime, cost, now), 210 * MS);
	/* a late dispatch keeps at most one depth of credit */
	vtime = throtl_bucket_charge(now - 10 * SEC, cost, now);
	KUNIT_EXPECT_EQ(test, vtime, now - THROTL_BUCKET_NS);
}

/* A limit change keeps the balance in bytes or IOs. */
static void throtl_rescale_test(struct kunit *test)
{
	u64 now = 1000 * SEC;

	/* 50 ms of credit at 100 IOPS is 5 IOs: 25 ms at 200 IOPS */
	KUNIT_EXPECT_EQ(test, throtl_bucket_rescale(now - 50 * MS, 100, 200, now),
			now - 25 * MS);
	/* 1 s of debt at 512 KiB/s is 512 KiB: 2 s at 256 KiB/s */
	KUNIT_EXPECT_EQ(test, throtl_bucket_rescale(now + SEC, SZ_512K, SZ_256K, now),
			now + 2 * SEC);
	/* lowering from the largest limits to the smallest saturates */
	KUNIT_EXPECT_EQ(test, throtl_bucket_rescale(now + SEC, U64_MAX - 1, 1, now),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, throtl_bucket_rescale(now - SEC, U64_MAX - 1, 1, now),
			0ULL);
	/* an unchanged rate changes nothing */
	KUNIT_EXPECT_EQ(test, throtl_bucket_rescale(now - 7, 333, 333, now), now - 7);
}

/*
 * The budget (blk_throtl_budget()): what a bucket holds is exactly what a
 * bio may take without waiting, one unit more waits, and it never exceeds
 * the depth however long the bucket was idle.
 */
static void throtl_tokens_test(struct kunit *test)
{
	static const u64 rates[] = { 1, 37, 1024, SZ_1M, 10 * SZ_1M,
				     100ULL * SZ_1G };
	u64 now = 5 * DAY, vtime, tokens, rate, cost;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		rate = rates[i];
		/* idle for a day: one depth, THROTL_BUCKET_NS of the rate */
		tokens = throtl_bucket_tokens(now - DAY, rate, now);
		KUNIT_EXPECT_EQ(test, tokens, div_u64(rate, 10));

		/* part full, at an odd time: the tokens are covered ... */
		vtime = now - 33333333;
		tokens = throtl_bucket_tokens(vtime, rate, now);
		KUNIT_EXPECT_EQ(test, tokens,
				div_u64(rate * 33333333, NSEC_PER_SEC));
		cost = throtl_cost_ns(tokens, rate);
		KUNIT_EXPECT_EQ(test, throtl_bucket_wait(vtime, cost, now), 0ULL);
		/* ... and one unit more is not */
		cost = throtl_cost_ns(tokens + 1, rate);
		KUNIT_EXPECT_GT(test, throtl_bucket_wait(vtime, cost, now), 0ULL);
	}

	/* a bucket in debt, or just emptied, holds nothing */
	KUNIT_EXPECT_EQ(test, throtl_bucket_tokens(now + MS, SZ_1M, now), 0ULL);
	KUNIT_EXPECT_EQ(test, throtl_bucket_tokens(now, SZ_1M, now), 0ULL);
	/* at boot, before one depth has passed */
	KUNIT_EXPECT_EQ(test, throtl_bucket_tokens(0, 1000, 10 * MS), 10ULL);
	/* the largest limit does not overflow */
	KUNIT_EXPECT_EQ(test, throtl_bucket_tokens(0, U64_MAX - 1, now),
			(U64_MAX - 1) / 10);
}

/*
 * The floor of a budget (throtl_read_floor()): THROTL_READ_WAIT_NS of the
 * rate or 16 KiB, shared among the bios queued (but for one, the reader's
 * own window) down to 16 KiB or, if less, the whole pages the rate
 * accrues in THROTL_READ_WAIT_NS, and never so small that reads of that
 * size at the bps limit would exceed the iops limit, or on a rotational
 * disk THROTL_READ_ROT_IOPS over the turns the read takes, unless those
 * turns carry more than one request of the disk.
 */
static void throtl_read_floor_test(struct kunit *test)
{
	static const u64 rates[] = { 1, 4096, 100 * 1024, SZ_1M, 10 * SZ_1M,
				     100ULL * SZ_1G };
	static const unsigned int iops[] = { 1, 7, 100, 200, 1000, 100000 };
	u64 floor, rate, least, last;
	unsigned int i, j, k;

	/* 1 MiB/s accrues 4 KiB in 4 ms: 16 KiB is the floor */
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, UINT_MAX, 0, 0, U64_MAX),
			(u64)SZ_16K);
	/* 10 MiB/s accrues 40 KiB, rounded up */
	KUNIT_EXPECT_EQ(test, throtl_read_floor(10 * SZ_1M, UINT_MAX, 0, 0, U64_MAX),
			41944ULL);
	/* one bio queued, the reader's own window: all of it */
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, UINT_MAX, 1, 0, U64_MAX),
			(u64)SZ_16K);
	/* eight bios queued: an eighth of it, but the page 4 ms accrues */
	least = round_down(4195ULL, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, UINT_MAX, 8, 0, U64_MAX),
			max_t(u64, SZ_2K, least));
	KUNIT_EXPECT_EQ(test,
			throtl_read_floor(SZ_1M, UINT_MAX, UINT_MAX, 0, U64_MAX),
			least);
	/* 10 MiB/s: an eighth would be 5 KiB, shared down to 16 KiB only */
	least = round_down((u64)SZ_16K, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, throtl_read_floor(10 * SZ_1M, UINT_MAX, 8, 0, U64_MAX),
			max_t(u64, 5243, least));
	KUNIT_EXPECT_EQ(test, throtl_read_floor(10 * SZ_1M, UINT_MAX, 2, 0, U64_MAX),
			20972ULL);
	/* from 4 MiB/s up, 16 KiB however many wait */
	KUNIT_EXPECT_EQ(test,
			throtl_read_floor(4 * SZ_1M, UINT_MAX, UINT_MAX, 0, U64_MAX),
			least);
	/* under 1 MiB/s 4 ms accrues less than a page: shared to nothing */
	KUNIT_EXPECT_EQ(test,
			throtl_read_floor(SZ_512K, UINT_MAX, UINT_MAX, 0, U64_MAX),
			0ULL);
	/* rbps=1MiB/s riops=100: 16 KiB; queued, 10 KiB and a bit */
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, 100, 0, 0, U64_MAX),
			(u64)SZ_16K);
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, 100, 8, 0, U64_MAX),
			10486ULL);
	/* rbps=10MiB/s riops=200: 51.2 KiB binds before the 40 KiB */
	KUNIT_EXPECT_EQ(test, throtl_read_floor(10 * SZ_1M, 200, 0, 0, U64_MAX),
			52429ULL);
	/* a rotational disk: at most 16 reads a second, however many wait */
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, UINT_MAX, 0, 1, U64_MAX),
			(u64)SZ_64K);
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, UINT_MAX, 8, 1, U64_MAX),
			(u64)SZ_64K);
	KUNIT_EXPECT_EQ(test, throtl_read_floor(10 * SZ_1M, 200, 0, 1, U64_MAX),
			655360ULL);
	/* there too a lower iops limit binds: rbps=1MiB/s riops=8 */
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, 8, 0, 1, U64_MAX),
			(u64)SZ_128K);
	/* eight turns, seven other groups' reads: half a second of it */
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, UINT_MAX, 0, 8, U64_MAX),
			(u64)SZ_512K);
	/* sixteen turns: a second of it, above a lower iops limit's floor */
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, 100, 8, 16, U64_MAX),
			(u64)SZ_1M);
	KUNIT_EXPECT_EQ(test, throtl_read_floor(U64_MAX - 1, UINT_MAX, 0, 16, U64_MAX),
			U64_MAX - 1);
	/* the turns never carry more than one request: it goes in pieces */
	KUNIT_EXPECT_EQ(test,
			throtl_read_floor(30 * SZ_1M, UINT_MAX, 0, 1, SZ_1M + SZ_256K),
			(u64)SZ_1M + SZ_256K);
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, UINT_MAX, 0, 8, SZ_128K),
			(u64)SZ_128K);
	/* the cap is the turns' only: a lower iops limit's floor stays */
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, 4, 0, 16, SZ_128K),
			(u64)SZ_256K);
	/* and so does every disk's floor: 16 KiB, or 4 ms of the limit */
	KUNIT_EXPECT_EQ(test, throtl_read_floor(SZ_1M, UINT_MAX, 0, 1, SZ_4K),
			(u64)SZ_16K);
	KUNIT_EXPECT_EQ(test, throtl_read_floor(30 * SZ_1M, UINT_MAX, 0, 1, SZ_64K),
			125830ULL);
	/* on a disk that is not rotational there is no cap to take */
	KUNIT_EXPECT_EQ(test, throtl_read_floor(10 * SZ_1M, UINT_MAX, 0, 0, SZ_4K),
			41944ULL);
	/* the largest limit does not overflow */
	KUNIT_EXPECT_EQ(test,
			throtl_read_floor(U64_MAX - 1, UINT_MAX, 0, 0, U64_MAX),
			div_u64(U64_MAX - 1, 250) + 1);

	/* reads of the floor at the bps limit stay within the iops limit */
	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		rate = rates[i];
		for (j = 0; j < ARRAY_SIZE(iops); j++) {
			floor = throtl_read_floor(rate, iops[j], 1000, 0, U64_MAX);
			KUNIT_EXPECT_GT(test, floor, 0ULL);
			KUNIT_EXPECT_LE(test, div64_u64(rate, floor),
					(u64)iops[j]);
			floor = throtl_read_floor(rate, iops[j], 1000, 1, U64_MAX);
			KUNIT_EXPECT_LE(test, div64_u64(rate, floor),
					(u64)min(iops[j], 16U));
			for (k = 2; k <= THROTL_READ_ROT_IOPS; k++) {
				last = floor;
				floor = throtl_read_floor(rate, iops[j], 1000,
							  k, U64_MAX);
				KUNIT_EXPECT_GE(test, floor, last);
				KUNIT_EXPECT_LE(test, div64_u64(rate, floor),
						(u64)THROTL_READ_ROT_IOPS / k);
			}
		}
	}
}

/*
 * The turns a read on a rotational disk takes (throtl_rot_turns()): its
 * own and one for each of the other groups' reads since its last or
 * between its last two, whichever is more, at most THROTL_READ_ROT_IOPS.
 * n groups reading in turn at the same limit, each taking n turns a
 * read, read 16 times a second together, and more than 16 groups once a
 * second each.
 */
static void throtl_rot_turns_test(struct kunit *test)
{
	u64 floor, reads;
	unsigned int n;

	/* alone: its own turn */
	KUNIT_EXPECT_EQ(test, throtl_rot_turns(0, 0), 1U);
	/* asked for as its last read left: the others' between its last two */
	KUNIT_EXPECT_EQ(test, throtl_rot_turns(0, 7), 8U);
	KUNIT_EXPECT_EQ(test, throtl_rot_turns(7, 3), 8U);
	/* at most a second of its limit, however many */
	KUNIT_EXPECT_EQ(test, throtl_rot_turns(15, 0), 16U);
	KUNIT_EXPECT_EQ(test, throtl_rot_turns(16, 100), 16U);
	KUNIT_EXPECT_EQ(test, throtl_rot_turns(ULONG_MAX, ULONG_MAX), 16U);

	for (n = 1; n <= 2 * THROTL_READ_ROT_IOPS; n++) {
		floor = throtl_read_floor(SZ_1M, UINT_MAX, 0,
					  throtl_rot_turns(0, n - 1), U64_MAX);
		reads = n * div64_u64(SZ_1M, floor);
		if (n <= THROTL_READ_ROT_IOPS)
			KUNIT_EXPECT_LE(test, reads, (u64)THROTL_READ_ROT_IOPS);
		else
			KUNIT_EXPECT_EQ(test, reads, (u64)n);
		if (THROTL_READ_ROT_IOPS % n == 0)
			KUNIT_EXPECT_EQ(test, reads, (u64)THROTL_READ_ROT_IOPS);
	}
}

/*
 * An issuer of background writes waits while its group has more than a
 * quarter of a second of its bps limit queued, and never for less than
 * one request; a group without a bps limit never makes it wait.
 */
static void throtl_issuer_bound_test(struct kunit *test)
{
	const u64 req = 1280 * 1024;	/* a common max_sectors_kb */

	KUNIT_EXPECT_EQ(test, throtl_issuer_bound(U64_MAX, req), U64_MAX);
	KUNIT_EXPECT_EQ(test, throtl_issuer_bound(1024 * 1024, req), req);
	KUNIT_EXPECT_EQ(test, throtl_issuer_bound(1024 * 1024, 4096),
			256 * 1024ULL);
	KUNIT_EXPECT_EQ(test, throtl_issuer_bound(100ULL << 20, req),
			25ULL << 20);
	/* the largest limit io.max takes below "max" does not overflow */
	KUNIT_EXPECT_EQ(test, throtl_issuer_bound(U64_MAX - 1, req),
			(U64_MAX - 1) / 4);
}

/*
 * The clock is 64-bit ns: a bucket far into a machine's life, where a
 * 32-bit jiffies count would long have wrapped, behaves as on day one.
 */
static void throtl_long_uptime_test(struct kunit *test)
{
	u64 cost = throtl_cost_ns(1, 100);
	u64 day1 = SEC, later = 200ULL * 365 * DAY;
	unsigned int free1, free2;
	u64 v1 = 0, v2 = 0, e1, e2;

	e1 = drive(&v1, cost, day1, 1000, &free1);
	e2 = drive(&v2, cost, later, 1000, &free2);
	KUNIT_EXPECT_EQ(test, free1, free2);
	KUNIT_EXPECT_EQ(test, e1 - day1, e2 - later);
}

/*
 * The lockless take: from an idle bucket, what a refill and a charge
 * would leave, or nothing at all; and a cost taken can be given back.
 */
static void throtl_take_test(struct kunit *test)
{
	u64 cost = throtl_cost_ns(1, 100), now = 10 * SEC, vtime, v;

	/* long idle: the bucket is full, 10 IOs, and the take refills it */
	vtime = 0;
	KUNIT_EXPECT_TRUE(test, throtl_bucket_take(&vtime, cost, now));
	KUNIT_EXPECT_EQ(test, vtime, now - THROTL_BUCKET_NS + cost);
	v = throtl_bucket_charge(throtl_bucket_refill(0, now), cost, now);
	KUNIT_EXPECT_EQ(test, vtime, v);
	/* given back, it is the refilled bucket */
	KUNIT_EXPECT_EQ(test, vtime - cost, throtl_bucket_refill(0, now));

	/* the other 9 IOs go; the 11th must wait and changes nothing */
	for (v = 1; v < 10; v++)
		KUNIT_EXPECT_TRUE(test, throtl_bucket_take(&vtime, cost, now));
	KUNIT_EXPECT_EQ(test, vtime, now);
	KUNIT_EXPECT_FALSE(test, throtl_bucket_take(&vtime, cost, now));
	KUNIT_EXPECT_EQ(test, vtime, now);

	/* a bucket in debt, as a bio that must not wait leaves it: nothing */
	vtime = throtl_bucket_charge(now, cost, now);
	KUNIT_EXPECT_FALSE(test, throtl_bucket_take(&vtime, 1, now));
	KUNIT_EXPECT_FALSE(test, throtl_bucket_take(&vtime, 1, now + cost - 1));
	KUNIT_EXPECT_TRUE(test, throtl_bucket_take(&vtime, 1, now + cost + 1));

	/* a bio bigger than the bucket never goes this way */
	vtime = 0;
	KUNIT_EXPECT_FALSE(test, throtl_bucket_take(&vtime,
						    THROTL_BUCKET_NS + 1, now));
	KUNIT_EXPECT_EQ(test, vtime, 0ULL);
}

/*
 * A CPU's credit: a window of each limit, what it costs, and whether a
 * window is worth buying; a credit never holds more than its cost bought.
 */
static void throtl_credit_window_test(struct kunit *test)
{
	struct throtl_credit_window w;

	/* no limit: unbounded, free, and no credit needed for it */
	KUNIT_EXPECT_TRUE(test, throtl_credit_window(U64_MAX, UINT_MAX, &w));
	KUNIT_EXPECT_EQ(test, w.bytes, U64_MAX);
	KUNIT_EXPECT_EQ(test, w.ios, UINT_MAX);
	KUNIT_EXPECT_EQ(test, w.bps_cost, 0ULL);
	KUNIT_EXPECT_EQ(test, w.iops_cost, 0ULL);

	/* riops=2000: two IOs a window, for exactly the window */
	KUNIT_EXPECT_TRUE(test, throtl_credit_window(U64_MAX, 2000, &w));
	KUNIT_EXPECT_EQ(test, w.ios, 2U);
	KUNIT_EXPECT_EQ(test, w.iops_cost, THROTL_WINDOW_NS);
	KUNIT_EXPECT_EQ(test, w.bytes, U64_MAX);
	/* riops=1500: one IO, rounded down, costing what one IO costs */
	KUNIT_EXPECT_TRUE(test, throtl_credit_window(U64_MAX, 1500, &w));
	KUNIT_EXPECT_EQ(test, w.ios, 1U);
	KUNIT_EXPECT_EQ(test, w.iops_cost, throtl_cost_ns(1, 1500));
	/* riops=999: a window holds no IO, no credit */
	KUNIT_EXPECT_FALSE(test, throtl_credit_window(U64_MAX, 999, &w));
	KUNIT_EXPECT_EQ(test, w.ios, 0U);

	/* rbps=1GiB/s: 1073741 bytes, not a byte more than it paid for */
	KUNIT_EXPECT_TRUE(test, throtl_credit_window(SZ_1G, UINT_MAX, &w));
	KUNIT_EXPECT_EQ(test, w.bytes, 1073741ULL);
	KUNIT_EXPECT_EQ(test, w.bps_cost, throtl_cost_ns(1073741, SZ_1G));
	KUNIT_EXPECT_LE(test, w.bps_cost, THROTL_WINDOW_NS);
	KUNIT_EXPECT_GE(test, w.bps_cost * SZ_1G, w.bytes * SEC);
	/* a window short of a 4 KiB bio: no credit (4096000 is just enough) */
	KUNIT_EXPECT_FALSE(test, throtl_credit_window(4095999, UINT_MAX, &w));
	KUNIT_EXPECT_TRUE(test, throtl_credit_window(4096000, UINT_MAX, &w));
	KUNIT_EXPECT_EQ(test, w.bytes, (u64)SZ_4K);

	/* both limits: the credit needs both to hold a bio */
	KUNIT_EXPECT_FALSE(test, throtl_credit_window(SZ_1G, 100, &w));
	KUNIT_EXPECT_FALSE(test, throtl_credit_window(SZ_1M, 20000, &w));
	KUNIT_EXPECT_TRUE(test, throtl_credit_window(SZ_1G, 20000, &w));
	KUNIT_EXPECT_EQ(test, w.ios, 20U);
	KUNIT_EXPECT_EQ(test, w.iops_cost, THROTL_WINDOW_NS);

	/* the largest limits a window can hold, without overflow */
	KUNIT_EXPECT_TRUE(test, throtl_credit_window(U64_MAX - 1, UINT_MAX - 1,
						     &w));
	KUNIT_EXPECT_EQ(test, w.ios, (unsigned int)div_u64((u64)(UINT_MAX - 1) *
							   THROTL_WINDOW_NS,
							   NSEC_PER_SEC));
	KUNIT_EXPECT_LE(test, w.iops_cost, THROTL_WINDOW_NS);
	KUNIT_EXPECT_LE(test, w.bps_cost, THROTL_WINDOW_NS);
}

/*
 * One service queue's timer serving @n groups, each with one reader that
 * submits its next bio the moment the last one is dispatched, at @iops
 * each, for one second: the way blk-throttle dispatches bios in windows
 * (throtl_pending_timer_fn()) and judges the ones that arrive
 * (__blk_throtl_bio()). Counts the timer's expiries and each group's IOs.
 * The groups' buckets start full, each a fraction of a bio's cost apart,
 * so that their bios fall due at times spread over the period.
 */
struct window_sim {
	u64 *vtime, *due;	/* a group's bucket; when its queued bio is due */
	unsigned int *ios;	/* IOs a group dispatched */
	unsigned int expiries;	/* the timer's */
	u64 window_end, cost;
};

/* A group's reader submits a bio at @now; false if it has to queue */
static bool window_arrive(struct window_sim *ws, unsigned int g, u64 now)
{
	u64 clock = throtl_window_clock(now, ws->window_end);
	u64 wait = throtl_bucket_wait(ws->vtime[g], ws->cost, clock);

	if (wait) {
		ws->due[g] = clock + wait;
		return false;
	}
	ws->vtime[g] = throtl_bucket_charge(ws->vtime[g], ws->cost, clock);
	ws->ios[g]++;
	return true;
}

static void window_run(struct kunit *test, struct window_sim *ws,
		       unsigned int n, u64 iops, u64 start)
{
	u64 t = start, last = 0, end = start + SEC;
	unsigned int g;

	ws->cost = throtl_cost_ns(1, iops);
	ws->window_end = 0;
	ws->expiries = 0;
	for (g = 0; g < n; g++) {
		ws->vtime[g] = throtl_bucket_refill(0, start) +
			       div_u64(ws->cost * g, n);
		ws->ios[g] = 0;
		while (window_arrive(ws, g, start))
			;
	}
	while (true) {
		/* the timer fires when the first queued bio is due */
		t = U64_MAX;
		for (g = 0; g < n; g++)
			t = min(t, ws->due[g]);
		if (t >= end)
			break;
		if (ws->expiries)
			KUNIT_EXPECT_GE(test, t - last, THROTL_WINDOW_NS);
		ws->expiries++;
		last = t;
		ws->window_end = throtl_window_end(t);
		for (g = 0; g < n; g++) {
			if (ws->due[g] > ws->window_end)
				continue;
			ws->vtime[g] = throtl_bucket_charge(ws->vtime[g],
							    ws->cost,
							    ws->window_end);
			ws->ios[g]++;
			ws->due[g] = U64_MAX;
			while (window_arrive(ws, g, t))
				;
		}
	}
}

/*
 * However high the rate and however many groups, a service queue's timer
 * fires at most once a window; every group still gets its rate, plus the
 * burst of a full bucket at the start and at most one window's worth.
 */
static void throtl_window_test(struct kunit *test)
{
	static const struct { unsigned int n; u64 iops; } cases[] = {
		{ 1, 100 }, { 1, 2000 }, { 1, 20000 }, { 1, 1000000 },
		{ 100, 200 }, { 100, 37 },
	};
	struct window_sim ws;
	unsigned int i, g, n = 100;
	u64 ideal;

	ws.vtime = kunit_kcalloc(test, n, sizeof(*ws.vtime), GFP_KERNEL);
	ws.due = kunit_kcalloc(test, n, sizeof(*ws.due), GFP_KERNEL);
	ws.ios = kunit_kcalloc(test, n, sizeof(*ws.ios), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ws.vtime);
	KUNIT_ASSERT_NOT_NULL(test, ws.due);
	KUNIT_ASSERT_NOT_NULL(test, ws.ios);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		n = cases[i].n;
		window_run(test, &ws, n, cases[i].iops, 10 * SEC);
		KUNIT_EXPECT_LE_MSG(test, ws.expiries, 1000U,
				    "%u groups at riops=%llu", n, cases[i].iops);
		/* a second and a bucket of the rate, within two IOs ... */
		ideal = cases[i].iops + div_u64(cases[i].iops, 10);
		for (g = 0; g < n; g++) {
			KUNIT_EXPECT_GE_MSG(test, (u64)ws.ios[g] + 2, ideal,
					    "riops=%llu", cases[i].iops);
			/* ... and at most a window more */
			KUNIT_EXPECT_LE_MSG(test, (u64)ws.ios[g],
					    ideal + 1 + div_u64(cases[i].iops, 1000),
					    "riops=%llu", cases[i].iops);
		}
	}

	/*
	 * A wait longer than a window stays exact: at riops=100 the bucket's
	 * 10 IOs go at once, and then one bio every 10 ms, each by the timer,
	 * at 10, 20, ... 990 ms.
	 */
	window_run(test, &ws, 1, 100, 10 * SEC);
	KUNIT_EXPECT_EQ(test, ws.expiries, 99U);
	KUNIT_EXPECT_EQ(test, ws.ios[0], 109U);
}

/*
 * The time a bio that arrives is judged at: its own arrival once the last
 * round's window has ended, else the window's end, and never more than a
 * window after now, whatever is read of the window's end without the lock
 * (a torn read on 32-bit).
 */
static void throtl_window_clock_test(struct kunit *test)
{
	u64 now = 10 * SEC, before = now - THROTL_WINDOW_NS / 2;
	u64 end = throtl_window_end(before), vtime, v;

	/* a window that has ended, or none yet */
	KUNIT_EXPECT_EQ(test, throtl_window_clock(now, 0), now);
	KUNIT_EXPECT_EQ(test, throtl_window_clock(now, now - 1), now);
	/* a window open: its end */
	KUNIT_EXPECT_EQ(test, throtl_window_clock(now, end), end);
	KUNIT_EXPECT_EQ(test, throtl_window_clock(now, throtl_window_end(now)),
			now + THROTL_WINDOW_NS);

	/*
	 * A window that ends just past 2^32 ns, read as it is written over
	 * one that ended just before: each 32-bit half may be the old or the
	 * new one. The bio is judged at most one window early.
	 */
	now = (1ULL << 32) - THROTL_WINDOW_NS / 4;
	end = throtl_window_end(now);
	v = (end & ~0xffffffffULL) | ((now - 1) & 0xffffffffULL);
	KUNIT_EXPECT_EQ(test, throtl_window_clock(now, v),
			now + THROTL_WINDOW_NS);
	v = ((now - 1) & ~0xffffffffULL) | (end & 0xffffffffULL);
	KUNIT_EXPECT_EQ(test, throtl_window_clock(now, v), now);
	KUNIT_EXPECT_EQ(test, throtl_window_clock(U64_MAX - 1, U64_MAX),
			U64_MAX);

	/*
	 * What it is for: a bio due half a window from now, in an open
	 * window, may take its tokens now, with or without the lock.
	 */
	now = 10 * SEC;
	vtime = now + THROTL_WINDOW_NS / 2 - MS;
	v = vtime;
	KUNIT_EXPECT_FALSE(test, throtl_bucket_take(&v, MS, now));
	end = throtl_window_end(now - THROTL_WINDOW_NS / 4);
	KUNIT_EXPECT_TRUE(test, throtl_bucket_take(&v, MS,
						   throtl_window_clock(now, end)));
	KUNIT_EXPECT_EQ(test, v, vtime + MS);
}

static void throtl_window_width_test(struct kunit *test)
{
	/* bios due a window or more apart, or costing nothing: the window */
	KUNIT_EXPECT_EQ(test, throtl_window_width(THROTL_WINDOW_NS),
			THROTL_WINDOW_NS);
	KUNIT_EXPECT_EQ(test, throtl_window_width(5 * MS), THROTL_WINDOW_NS);
	KUNIT_EXPECT_EQ(test, throtl_window_width(U64_MAX), THROTL_WINDOW_NS);
	KUNIT_EXPECT_EQ(test, throtl_window_width(0), THROTL_WINDOW_NS);

	/* faster: eight bios, from one window to THROTL_WINDOW_MAX_NS */
	KUNIT_EXPECT_EQ(test, throtl_window_width(THROTL_WINDOW_NS - 1),
			THROTL_WINDOW_MAX_NS);
	KUNIT_EXPECT_EQ(test, throtl_window_width(MS / 2),	/* riops=2000 */
			THROTL_WINDOW_MAX_NS);
	KUNIT_EXPECT_EQ(test, throtl_window_width(MS / 4), 2 * MS);
	KUNIT_EXPECT_EQ(test, throtl_window_width(MS / 8), THROTL_WINDOW_NS);
	KUNIT_EXPECT_EQ(test, throtl_window_width(MS / 20),	/* riops=20000 */
			THROTL_WINDOW_NS);
}

static void throtl_group_window_clock_test(struct kunit *test)
{
	u64 now = 10 * SEC, qend = now + THROTL_WINDOW_NS / 2;
	u64 end, v, vtime, clock;

	/* no window of the group's open: the queue's, as before */
	KUNIT_EXPECT_EQ(test, throtl_group_window_clock(now, 0, 0), now);
	KUNIT_EXPECT_EQ(test, throtl_group_window_clock(now, qend, 0), qend);
	KUNIT_EXPECT_EQ(test, throtl_group_window_clock(now, qend, now - 1),
			qend);
	/* the group's ends before the queue's: the queue's */
	KUNIT_EXPECT_EQ(test, throtl_group_window_clock(now, qend, qend - 1),
			qend);
	/* the group's open and later: its end */
	end = now + 3 * MS;
	KUNIT_EXPECT_EQ(test, throtl_group_window_clock(now, qend, end), end);
	KUNIT_EXPECT_EQ(test, throtl_group_window_clock(now, 0, end), end);
	/* never more than THROTL_WINDOW_MAX_NS after now */
	KUNIT_EXPECT_EQ(test, throtl_group_window_clock(now, 0, U64_MAX),
			now + THROTL_WINDOW_MAX_NS);
	KUNIT_EXPECT_EQ(test, throtl_group_window_clock(U64_MAX - 1, 0,
							U64_MAX), U64_MAX);

	/*
	 * A group's window that ends just past 2^32 ns, read as it is
	 * written over one that ended just before: a bio is judged between
	 * now and THROTL_WINDOW_MAX_NS after it.
	 */
	now = (1ULL << 32) - THROTL_WINDOW_MAX_NS / 4;
	end = now + THROTL_WINDOW_MAX_NS;
	v = (end & ~0xffffffffULL) | ((now - 1) & 0xffffffffULL);
	KUNIT_EXPECT_EQ(test, throtl_group_window_clock(now, 0, v),
			now + THROTL_WINDOW_MAX_NS);
	v = ((now - 1) & ~0xffffffffULL) | (end & 0xffffffffULL);
	KUNIT_EXPECT_EQ(test, throtl_group_window_clock(now, 0, v), now);

	/*
	 * What it is for: at riops=2000, a bio due 3 ms from now, in an
	 * open window of its group's of 4 ms, may take its tokens now.
	 */
	now = 10 * SEC;
	vtime = now + 3 * MS - MS / 2;
	v = vtime;
	clock = throtl_group_window_clock(now, now + MS, 0);
	KUNIT_EXPECT_FALSE(test, throtl_bucket_take(&v, MS / 2, clock));
	end = now - MS + throtl_window_width(MS / 2);
	clock = throtl_group_window_clock(now, now + MS, end);
	KUNIT_EXPECT_TRUE(test, throtl_bucket_take(&v, MS / 2, clock));
	KUNIT_EXPECT_EQ(test, v, vtime + MS / 2);
}

static struct kunit_case throtl_bucket_cases[] = {
	KUNIT_CASE(throtl_cost_test),
	KUNIT_CASE(throtl_mul_div_test),
	KUNIT_CASE(throtl_rate_test),
	KUNIT_CASE(throtl_depth_test),
	KUNIT_CASE(throtl_refill_test),
	KUNIT_CASE(throtl_big_bio_test),
	KUNIT_CASE(throtl_wait_test),
	KUNIT_CASE(throtl_debt_test),
	KUNIT_CASE(throtl_rescale_test),
	KUNIT_CASE(throtl_tokens_test),
	KUNIT_CASE(throtl_read_floor_test),
	KUNIT_CASE(throtl_rot_turns_test),
	KUNIT_CASE(throtl_issuer_bound_test),
	KUNIT_CASE(throtl_long_uptime_test),
	KUNIT_CASE(throtl_take_test),
	KUNIT_CASE(throtl_credit_window_test),
	KUNIT_CASE(throtl_window_test),
	KUNIT_CASE(throtl_window_clock_test),
	KUNIT_CASE(throtl_window_width_test),
	KUNIT_CASE(throtl_group_window_clock_test),
	{}
};

static struct kunit_suite throtl_bucket_suite = {
	.name = "blk-throttle-bucket",
	.test_cases = throtl_bucket_cases,
};

kunit_test_suite(throtl_bucket_suite);

MODULE_DESCRIPTION("KUnit tests for blk-throttle's token buckets");
MODULE_LICENSE("GPL");
