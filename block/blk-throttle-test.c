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
 * round's window has ended, else the window's end.
 */
static void throtl_window_clock_test(struct kunit *test)
{
	u64 now = 10 * SEC, before = now - THROTL_WINDOW_NS / 2;
	u64 end = throtl_window_end(before), vtime;

	/* a window that has ended, or none yet */
	KUNIT_EXPECT_EQ(test, throtl_window_clock(now, 0), now);
	KUNIT_EXPECT_EQ(test, throtl_window_clock(now, now - 1), now);
	/* a window open: its end */
	KUNIT_EXPECT_EQ(test, throtl_window_clock(now, end), end);
	KUNIT_EXPECT_EQ(test, throtl_window_clock(now, throtl_window_end(now)),
			now + THROTL_WINDOW_NS);
	KUNIT_EXPECT_EQ(test, throtl_window_clock(U64_MAX - 1, U64_MAX),
			U64_MAX);

	/*
	 * What it is for: a bio due half a window from now, in an open
	 * window, may go now.
	 */
	vtime = now + THROTL_WINDOW_NS / 2 - MS;
	KUNIT_EXPECT_GT(test, throtl_bucket_wait(vtime, MS, now), 0ULL);
	KUNIT_EXPECT_EQ(test, throtl_bucket_wait(vtime, MS,
						 throtl_window_clock(now, end)),
			0ULL);
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
	KUNIT_CASE(throtl_long_uptime_test),
	KUNIT_CASE(throtl_window_test),
	KUNIT_CASE(throtl_window_clock_test),
	{}
};

static struct kunit_suite throtl_bucket_suite = {
	.name = "blk-throttle-bucket",
	.test_cases = throtl_bucket_cases,
};

kunit_test_suite(throtl_bucket_suite);

MODULE_DESCRIPTION("KUnit tests for blk-throttle's token buckets");
MODULE_LICENSE("GPL");
