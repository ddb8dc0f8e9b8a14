package org.fts.goa.intake;

import java.util.concurrent.atomic.LongAdder;

/**
 * How the requests a replica took ended at its intake, counted (docs/metrics.md: {@code fts_replica_requests_*_total}):
 * ordered (cast into the total order, oneways included), answered from the reply cache (a retry of a call the group
 * executed), timed out ({@code fts.request.timeout}: the client got COMPLETED_MAYBE), and refused before anything was
 * cast, by why. One per replica, shared by its listeners' intakes; each count is a {@link LongAdder}, so the request
 * path never contends on it.
 */
public final class RequestOutcomes {
    final LongAdder ordered = new LongAdder();
    final LongAdder fromCache = new LongAdder();
    final LongAdder timedOut = new LongAdder();
    final LongAdder notServing = new LongAdder();
    final LongAdder noObject = new LongAdder();
    final LongAdder tooLarge = new LongAdder();
    final LongAdder malformed = new LongAdder();

    /** Requests cast into the total order here. */
    public long ordered() {
        return ordered.sum();
    }

    /** Retries answered from the reply cache, executed once before. */
    public long fromCache() {
        return fromCache.sum();
    }

    /** Requests whose reply did not come within {@code fts.request.timeout}. */
    public long timedOut() {
        return timedOut.sum();
    }

    /** Refused with TRANSIENT: this replica did not serve. */
    public long notServing() {
        return notServing.sum();
    }

    /** Refused with OBJECT_NOT_EXIST: the key names no object of the group. */
    public long noObject() {
        return noObject.sum();
    }

    /** Refused with IMP_LIMIT: larger than {@code fts.request.max_size}. */
    public long tooLarge() {
        return tooLarge.sum();
    }

    /** Refused because the request could not be captured (MARSHAL: malformed arguments or contexts). */
    public long malformed() {
        return malformed.sum();
    }
}
