package org.fts.batching;

import java.time.Duration;

import org.fts.config.Durations;

/** The batching policies of FTS, by alias. Parameters come from {@link BatchingConfig}. */
public final class BatchPolicies {
    private BatchPolicies() {
    }

    /** {@code nb}: no batching, every cast is sent at once. */
    public static BatchPolicy none() {
        return new BatchPolicy() {
            @Override
            public boolean afterCast(BatchState s, long now) {
                return true;
            }

            @Override
            public String describe() {
                return "nb";
            }
        };
    }

    /** {@code cb}: send at {@code count} messages, or {@code backup} after the batch's first message. */
    public static BatchPolicy count(int count, Duration backup) {
        long backupNanos = backup.toNanos();
        return new BatchPolicy() {
            @Override
            public boolean afterCast(BatchState s, long now) {
                return s.pending() >= count;
            }

            @Override
            public long nextCheck(BatchState s, long now) {
                return s.pending() == 0 ? Long.MAX_VALUE : s.firstCastNanos() + backupNanos;
            }

            @Override
            public boolean onTimer(BatchState s, long now) {
                return s.pending() > 0 && now - s.firstCastNanos() >= backupNanos;
            }

            @Override
            public String describe() {
                return "cb(count=" + count + ",backup=" + Durations.format(backup) + ")";
            }
        };
    }

    /** {@code tb}: every {@code window}, send whatever accumulated. */
    public static BatchPolicy time(Duration window) {
        long w = window.toNanos();
        return new BatchPolicy() {
            private long windowEnd = Long.MIN_VALUE;

            @Override
            public boolean afterCast(BatchState s, long now) {
                if (windowEnd == Long.MIN_VALUE) {
                    windowEnd = now + w;
                }
                return false;
            }

            @Override
            public long nextCheck(BatchState s, long now) {
                return windowEnd == Long.MIN_VALUE ? Long.MAX_VALUE : windowEnd;
            }

            @Override
            public boolean onTimer(BatchState s, long now) {
                if (windowEnd == Long.MIN_VALUE || now < windowEnd) {
                    return false;
                }
                // Windows tick from the previous end, not from when the timer ran: a late timer does not
                // stretch later windows.
                windowEnd += w * Math.max(1, (now - windowEnd) / w + 1);
                return s.pending() > 0;
            }

            @Override
            public String describe() {
                return "tb(window=" + Durations.format(window) + ")";
            }
        };
    }

    /** {@code ab}: send when the casting thread finds nobody else inside the doorway. */
    public static BatchPolicy adaptive(String placement) {
        return new BatchPolicy() {
            @Override
            public boolean afterCast(BatchState s, long now) {
                return s.inside() == 0;
            }

            @Override
            public String describe() {
                return "ab(doorway=" + placement + ")";
            }
        };
    }

    /** {@code tab}: send once no new cast came for {@code doorway} (the timer restarts at each cast). */
    public static BatchPolicy timedAdaptive(Duration doorway) {
        long d = doorway.toNanos();
        return new BatchPolicy() {
            @Override
            public boolean afterCast(BatchState s, long now) {
                return d == 0;
            }

            @Override
            public long nextCheck(BatchState s, long now) {
                return s.pending() == 0 ? Long.MAX_VALUE : s.lastCastNanos() + d;
            }

            @Override
            public boolean onTimer(BatchState s, long now) {
                return s.pending() > 0 && now - s.lastCastNanos() >= d;
            }

            @Override
            public String describe() {
                return "tab(doorway=" + Durations.format(doorway) + ")";
            }
        };
    }

    /**
     * {@code atab}: TAB that charges nothing to a lone request. TAB sends a batch once no cast came for {@code
     * doorway}. atab also sends a cast at once when no other request can be about to join it:
     * <ul>
     *   <li>the cast is alone: it is the batch's only message, nobody else is inside the doorway, and none of this
     *       member's batches is in flight (every request this replica cast before has been delivered back), so the
     *       only requests that could join are new arrivals; or</li>
     *   <li>it comes after at least {@code doorway} of quiet, with nobody else inside: the doorway was already seen
     *       quiet, and at that arrival rate no other request is likely to join it.</li>
     * </ul>
     * Under load (casts closer than the doorway, or batches in flight) it is TAB, with TAB's batches. The first
     * rule serves one client whose round trip is shorter than the doorway: with the quiet rule alone, its requests
     * waited out the doorway every other call (p50 2.1x NB's with {@code bin/fts load} at one connection; 0.99x with
     * both rules; docs/batching.md).
     */
    public static BatchPolicy aloneAwareTimedAdaptive(Duration doorway) {
        long d = doorway.toNanos();
        BatchPolicy tab = timedAdaptive(doorway);
        return new BatchPolicy() {
            private long previousCast = Long.MIN_VALUE;

            @Override
            public boolean afterCast(BatchState s, long now) {
                boolean quietBefore = previousCast == Long.MIN_VALUE || now - previousCast >= d;
                previousCast = now;
                boolean lone = s.pending() == 1 && s.inside() == 0;
                return tab.afterCast(s, now) || (lone && (s.inFlight() == 0 || quietBefore));
            }

            @Override
            public long nextCheck(BatchState s, long now) {
                return tab.nextCheck(s, now);
            }

            @Override
            public boolean onTimer(BatchState s, long now) {
                return tab.onTimer(s, now);
            }

            @Override
            public String describe() {
                return "atab(doorway=" + Durations.format(doorway) + ")";
            }
        };
    }

    /**
     * A bound on any policy: send no later than {@code maxDelay} after the batch's first message, and at
     * {@code maxCount} messages at the latest (the paper's conclusion: adaptive, with guaranteed progress and
     * bounded latency). Zero means no bound of that kind.
     */
    public static BatchPolicy bounded(BatchPolicy base, Duration maxDelay, int maxCount) {
        long md = maxDelay.toNanos();
        return new BatchPolicy() {
            @Override
            public boolean afterCast(BatchState s, long now) {
                return base.afterCast(s, now) || (maxCount > 0 && s.pending() >= maxCount);
            }

            @Override
            public long nextCheck(BatchState s, long now) {
                long b = base.nextCheck(s, now);
                return md == 0 || s.pending() == 0 ? b : Math.min(b, s.firstCastNanos() + md);
            }

            @Override
            public boolean onTimer(BatchState s, long now) {
                boolean baseSays = base.onTimer(s, now);
                return baseSays || (md > 0 && s.pending() > 0 && now - s.firstCastNanos() >= md);
            }

            @Override
            public void onSent(BatchState s, int messages, long now) {
                base.onSent(s, messages, now);
            }

            @Override
            public boolean onDelivered(BatchState s, long now) {
                return base.onDelivered(s, now);
            }

            @Override
            public String describe() {
                return base.describe() + "+bound(max_delay=" + Durations.format(maxDelay) + ",max_count=" + maxCount + ")";
            }
        };
    }

    /**
     * {@code natural}: no timer at all. Send at once while fewer than {@code maxInFlight} of this member's
     * batches are in flight; otherwise accumulate until one is delivered back.
     */
    public static BatchPolicy natural(int maxInFlight) {
        return new BatchPolicy() {
            @Override
            public boolean afterCast(BatchState s, long now) {
                return s.inFlight() < maxInFlight;
            }

            @Override
            public boolean onDelivered(BatchState s, long now) {
                return s.pending() > 0 && s.inFlight() < maxInFlight;
            }

            @Override
            public String describe() {
                return "natural(max_in_flight=" + maxInFlight + ")";
            }
        };
    }

    /** {@code pack}: Bartoli et al.'s adaptive packing degree, see {@link PackingPolicy}. */
    public static BatchPolicy packing(int maxPack, Duration interval, Duration period) {
        return new PackingPolicy(maxPack, interval, period);
    }
}
