package org.fts.order;

/**
 * Where a {@link Member}'s copy of the group's history stands: what it holds, delivered, knows committed, logged and
 * replays. Each number moves by a named transition that checks the step it takes (a history is held and delivered one
 * entry after another; what is known committed never shrinks); a step out of order is a bug of the protocol, thrown
 * as {@link IllegalStateException} rather than carried on. Guarded by the member's monitor.
 *
 * <p>Entries are numbered along the whole history (gseq): {@code held} is the last entry held contiguously, {@code
 * delivered} the last handed to the application (or skipped by a gap), {@code commitKnown} the last the sequencer
 * said a majority holds.
 */
final class HistoryCounters {
    private long held;
    private long delivered;
    private long deliveredHere;
    private long commitKnown;
    private long logged;
    private long replayTo;
    private boolean applied;

    /** The last entry held contiguously. */
    long held() {
        return held;
    }

    /** The last entry handed to the application, or skipped by a gap. */
    long delivered() {
        return delivered;
    }

    /**
     * The last position this member delivered itself (not skipped by a gap): under uniform delivery a delivered entry
     * was committed, so every later history holds it there.
     */
    long deliveredHere() {
        return deliveredHere;
    }

    /** The last entry this member knows a majority holds. */
    long commitKnown() {
        return commitKnown;
    }

    /** With a log: the last entry handed to it (entries held while catching up go to it once the epoch opens). */
    long logged() {
        return logged;
    }

    /**
     * A restarted member's log end: its own log's entries up to here are replayed whatever the delivery backlog (they
     * are in memory already, and after a whole-group restart no other member may be able to provide a state).
     */
    long replayTo() {
        return replayTo;
    }

    /** Whether its state holds a broadcast (delivered, or a gap's); not delivered > 0, which a refounding sets. */
    boolean applied() {
        return applied;
    }

    /** Holds the next entry of the history. */
    void hold(long gseq) {
        if (gseq != held + 1) {
            throw new IllegalStateException("holds entry " + gseq + " after " + held + ": a hole in its history");
        }
        held = gseq;
    }

    /** Hands the next entry it holds to the application. */
    void deliver(long gseq) {
        if (gseq != delivered + 1 || gseq > held) {
            throw new IllegalStateException("delivers entry " + gseq + " after " + delivered + ", holding " + held);
        }
        delivered = gseq;
        deliveredHere = gseq;
        applied = true;
    }

    /** A majority holds everything up to {@code upTo}: never forgotten within one history (a gap, {@link #skipTo}, ends it). */
    void knowCommitted(long upTo) {
        commitKnown = Math.max(commitKnown, upTo);
    }

    /** Agreed delivery, opening an epoch: it knows committed exactly what it holds (the sequencer counts from there). */
    void agreedOpened() {
        commitKnown = held;
    }

    /** With a log: it holds up to {@code upTo}. */
    void logged(long upTo) {
        logged = upTo;
    }

    /** Its history after {@code t} is dropped, from what it holds and from its log. */
    void cutAfter(long t) {
        held = Math.min(held, t);
        logged = Math.min(logged, t);
    }

    /** Its log after {@code t} is dropped: none of it is replayed either. */
    void cutLogAfter(long t) {
        cutAfter(t);
        replayTo = Math.min(replayTo, t);
    }

    /**
     * An epoch opens with a gap at {@code start}: it skips the history before it (its state is fetched, and holds
     * broadcasts).
     */
    void skipTo(long start) {
        held = start - 1;
        delivered = held;
        applied = true;
        // what it knew committed, or delivered, beyond the gap was of another history: the new epoch's commits say
        // what is (a report states max(commitKnown, deliveredHere) as committed under uniform delivery)
        commitKnown = Math.min(commitKnown, held);
        deliveredHere = Math.min(deliveredHere, held);
    }

    /** A founding again at {@code start}: what it held was never committed, and its state is the initial one. */
    void refoundAt(long start) {
        if (applied) {
            throw new IllegalStateException("founds again at " + start + " although its state holds broadcasts");
        }
        held = start - 1;
        delivered = held;
    }

    /**
     * A restart from a log whose state is at {@code from} (a checkpoint, or the initial state): the entries after it
     * are held one by one ({@link #hold}), and replayed up to the log's end ({@link #replayThrough}).
     *
     * @param applied whether that state holds a broadcast
     */
    void restartAt(long from, boolean applied) {
        held = from;
        delivered = from;
        this.applied = applied;
    }

    /** A restart: its log's entries up to {@code end} are replayed. */
    void replayThrough(long end) {
        replayTo = end;
    }

    /** A restart with no state to replay its log into: it fetches the group's, and delivers nothing it holds. */
    void nothingToReplay() {
        delivered = held;
    }

    @Override
    public String toString() {
        return "held=" + held + " delivered=" + delivered + " commitKnown=" + commitKnown;
    }
}
