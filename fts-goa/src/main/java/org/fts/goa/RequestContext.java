package org.fts.goa;

import java.time.Instant;
import java.util.Random;

import org.omg.CORBA.BAD_INV_ORDER;
import org.omg.CORBA.CompletionStatus;

/**
 * What the group decided for the ordered request this thread executes: its position in the total order, the time, and
 * a random source, each the same on every replica. A servant reads these instead of its replica's clock and its own
 * random numbers, which differ from replica to replica and make the replicas' states diverge (docs/determinism.md):
 *
 * <pre>
 *   long now = RequestContext.current().currentTimeMillis();   // not System.currentTimeMillis()
 *   Random random = RequestContext.current().random();          // not new Random()
 * </pre>
 *
 * <p>Guarantees: within one request, {@link #currentTimeMillis} is one value, the same on every replica, and it never
 * goes back from one request to the next anywhere in the group (also across state transfers, restarts from the log
 * and backups restored). It exists with one execution lane ({@code fts.pool.background=1}, the default) only. It follows the replicas' wall clocks through the median of their offsets from the group's
 * own time ({@code GroupCalendar}), so one replica whose clock is far off moves it by nothing; when the median goes
 * back, the time stands still until it catches up. {@link #random} gives the same sequence on every replica for the
 * same request. Outside an ordered request (a thread of the server's own, a declared read executed locally),
 * {@link #current} throws {@code BAD_INV_ORDER}.
 */
public final class RequestContext {
    private static final ThreadLocal<RequestContext> CURRENT = new ThreadLocal<>();

    private final long position;
    private final long time;
    private final long seed;
    private final String operation;
    private final String origin;
    private final Object group;
    private Random random;

    /** @param group what identifies the adaptor executing the request (its object table) */
    RequestContext(long position, long time, long seed, String operation, String origin, Object group) {
        this.group = group;
        this.position = position;
        this.time = time;
        this.seed = seed;
        this.operation = operation;
        this.origin = origin;
    }

    /** Whether this thread executes an ordered request of the adaptor {@code group} identifies. */
    static boolean executingFor(Object group) {
        RequestContext c = CURRENT.get();
        return c != null && c.group == group;
    }

    /** This thread's context, or null. */
    static RequestContext orNull() {
        return CURRENT.get();
    }

    /** The replica that received the request (it makes the request's ordered outcalls while it lives). */
    String origin() {
        return origin;
    }

    /**
     * The context of the ordered request this thread executes.
     *
     * @throws BAD_INV_ORDER if this thread executes none
     */
    public static RequestContext current() {
        RequestContext c = CURRENT.get();
        if (c == null) {   // also with more than one execution lane (fts.pool.background > 1): no order of positions
            throw new BAD_INV_ORDER("FTS: no ordered request executes on this thread (thread "
                    + Thread.currentThread().getName() + "): the group's time and random numbers exist only while a "
                    + "servant executes a request, with one execution lane (fts.pool.background=1)", 0,
                    CompletionStatus.COMPLETED_NO);
        }
        return c;
    }

    /** Whether this thread executes an ordered request. */
    public static boolean active() {
        return CURRENT.get() != null;
    }

    /**
     * The request's position: how many requests the group executed before it, counted from its first; -1 for a
     * short while after a restart from a state of an FTS version before positions, until the group aligns them.
     */
    public long position() {
        return position;
    }

    /** The group's time for this request, in milliseconds since 1970 (UTC), as {@code System.currentTimeMillis()}. */
    public long currentTimeMillis() {
        return time;
    }

    /** {@link #currentTimeMillis} as an instant. */
    public Instant instant() {
        return Instant.ofEpochMilli(time);
    }

    /** A random source seeded from the request: the same sequence on every replica; one per request. */
    public Random random() {
        if (random == null) {
            random = new Random(seed);
        }
        return random;
    }

    /** The operation this request invokes. */
    public String operation() {
        return operation;
    }

    /** Execution path: runs {@code body} with {@code c} as this thread's context. */
    static <T> T within(RequestContext c, java.util.function.Supplier<T> body) {
        RequestContext outer = CURRENT.get();
        CURRENT.set(c);
        try {
            return body.get();
        } finally {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
        }
    }
}
