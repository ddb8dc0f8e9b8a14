package org.fts.goa.intake;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Stage 9: every replica keeps every reply, so that a retry reaching any replica gets the original answer
 * instead of a second execution.
 *
 * <p>Whether a request already executed decides whether it executes, so the cache's contents must be the same
 * at every replica at the same point of the total order. Entries are therefore added and evicted only on the
 * execution path, and time there is the group's own ({@link GroupClock}: the delivered requests' stamps), never a
 * wall clock.
 *
 * <p>Only replies a retry can ask for are kept: those of FT clients (FT_REQUEST), until the request's
 * {@code keepUntil} ({@link #keepUntil}). Beyond {@code maxEntries} the oldest replies go first. Either way the
 * request's id stays remembered ({@link ExecutedIds}) for at least {@code 2 × ttlMillis} of group time after its
 * capture, so that it never executes twice: a retry, or a second cast of it ordered late, gets {@code IMP_LIMIT}
 * (COMPLETED_YES) instead of the lost reply. That holds for every cast captured within {@code ttlMillis} of the
 * first, whatever any wall clock says (docs/fault-tolerance.md). Size {@code maxEntries} for the replies a retry
 * window holds (request rate × {@code fts.client.request_duration}); each entry costs its reply's bytes plus about
 * 200 bytes; a client's remembered ids cost a few dozen bytes per run of consecutive ids. Runs are bounded too
 * ({@link #RUNS_PER_ENTRY} per entry); past that the oldest go, and only then can a request execute twice. Both
 * kinds of early eviction are counted and logged.
 */
public final class ReplyCache {
    private record Entry(Reply reply, long expiresAt) {
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ReplyCache.class);

    /** Runs of remembered ids kept per {@code maxEntries}. */
    static final int RUNS_PER_ENTRY = 4;
    /** How often (group time) runs whose time passed are freed. */
    private static final long SWEEP_MILLIS = 1_000;

    private final int maxEntries;
    private final ExecutedIds executed;
    private final GroupClock clock;
    private final long ttlMillis;
    private final long marginMillis;
    private long earlyEvictions;
    private final LinkedHashMap<RequestId, Entry> entries = new LinkedHashMap<>();
    private long now;   // the group's time as of the last request executed: this cache's deterministic clock

    public ReplyCache(int maxEntries, long ttlMillis, long marginMillis) {
        this(maxEntries, ttlMillis, marginMillis, new GroupClock());
    }

    public ReplyCache(int maxEntries, long ttlMillis, long marginMillis, GroupClock clock) {
        this.maxEntries = maxEntries;
        this.ttlMillis = ttlMillis;
        this.marginMillis = marginMillis;
        this.clock = clock;
        this.executed = new ExecutedIds((long) maxEntries * RUNS_PER_ENTRY);
    }

    /** The group's clock this cache keeps time by: requests are stamped with its {@link GroupClock#estimate}. */
    GroupClock clock() {
        return clock;
    }

    /**
     * Execution path: the group's time (ms, {@link GroupClock}) as of the last request executed; the same at every
     * replica at the same position of the order.
     */
    public synchronized long groupTime() {
        return now;
    }

    /** Any thread: this replica's estimate of the group's time now (what it stamps a request with). */
    public long groupTimeEstimate() {
        return clock.estimate();
    }

    /**
     * Capture path: until when (group time) to keep the reply of an FT request stamped {@code stamp}, whose client
     * retries it until {@code expirationMillis} on its own clock, received when this replica's wall clock read
     * {@code wallMillis}: for what is left of the client's retries, plus the margin, at most the TTL. The wall clock
     * only turns the client's expiration into a duration: a skewed one keeps a reply shorter or longer, never
     * lets a request execute twice (its id outlives the reply).
     */
    long keepUntil(long stamp, long wallMillis, long expirationMillis) {
        return stamp + Math.min(ttlMillis, Math.max(0, expirationMillis - wallMillis) + marginMillis);
    }

    /** Execution path: the reply of {@code id}, if cached, as of a request stamped {@code timestamp}. */
    public synchronized Reply lookup(RequestId id, long timestamp) {
        advance(timestamp);
        Entry e = entries.get(id);
        return e == null ? null : e.reply();
    }

    /**
     * Execution path: caches the reply of a request stamped {@code timestamp}, until {@code keepUntil}, and
     * remembers that it executed for {@code 2 × ttl} after its stamp (at least as long as its reply).
     */
    public synchronized void put(RequestId id, Reply reply, long timestamp, long keepUntil) {
        advance(timestamp);
        executed.add(id, Math.max(keepUntil, timestamp + 2 * ttlMillis), now);
        entries.putIfAbsent(id, new Entry(reply, keepUntil));
        evict();
    }

    /**
     * Execution path, after {@link #lookup} found nothing: whether {@code id} executed already and its reply is
     * gone (expired, or evicted when the cache was full): it must not execute again.
     */
    public synchronized boolean evictedEarly(RequestId id) {
        return executed.contains(id, now);
    }

    /**
     * Execution path, after {@link #lookup}: whether the group's time passed {@code keepUntil}, the time until
     * which a request's reply would have been kept for its retries. Such a request, ordered this late (a cast that
     * a replica appended again long after its client gave up: a raft member cut off for a while, or a cast from a
     * replica whose view of the group's time is stale), must not execute: its client has had its answer (a
     * failure), and its reply may be gone already.
     */
    public synchronized boolean pastKeeping(long keepUntil) {
        return keepUntil > 0 && now > keepUntil;
    }

    /** Foreground path (a client's retry arriving): a read that changes nothing. */
    synchronized Reply peek(RequestId id) {
        Entry e = entries.get(id);
        return e == null ? null : e.reply();
    }

    public synchronized int size() {
        return entries.size();
    }

    /** Replies evicted before their requests expired (the cache was full): a retry of one gets IMP_LIMIT. */
    public synchronized long earlyEvictions() {
        return earlyEvictions;
    }

    /** Runs of remembered ids forgotten before their time (their bound was reached). */
    synchronized long forgottenEarly() {
        return executed.forgottenEarly();
    }

    /** Runs of consecutive ids remembered (executed FT requests, by client). */
    synchronized long rememberedRuns() {
        return executed.runs();
    }

    /** Execution path, at a cut (state transfer): the group's time, every entry oldest first, the remembered ids. */
    public synchronized void writeTo(java.io.DataOutputStream out) throws java.io.IOException {
        out.writeLong(now);
        out.writeInt(entries.size());
        for (Map.Entry<RequestId, Entry> e : entries.entrySet()) {
            out.writeUTF(e.getKey().clientId());
            out.writeLong(e.getKey().retentionId());
            out.writeByte(e.getValue().reply().kind().ordinal());
            out.writeLong(e.getValue().expiresAt());
            out.writeInt(e.getValue().reply().body().length);
            out.write(e.getValue().reply().body());
        }
        executed.writeTo(out, now);
    }

    /** A cache's whole contents as {@link #writeTo} wrote them, parsed (a state transfer's part). */
    public static final class Contents {
        private final long clock;
        private final LinkedHashMap<RequestId, Entry> entries;
        private final LinkedHashMap<String, java.util.List<long[]>> executed;

        private Contents(long clock, LinkedHashMap<RequestId, Entry> entries,
                         LinkedHashMap<String, java.util.List<long[]>> executed) {
            this.clock = clock;
            this.entries = entries;
            this.executed = executed;
        }
    }

    /**
     * Parses what {@link #writeTo} wrote; {@link java.io.IOException} if it is truncated or malformed. With
     * {@code tombstones} it parses the form before the remembered ids (state format 2: a list of tombstones, each
     * an id and its expiry), each tombstone and each cached reply then remembered until its expiry.
     */
    public static Contents read(java.io.DataInputStream in, boolean tombstones) throws java.io.IOException {
        long clock = in.readLong();
        int n = in.readInt();
        LinkedHashMap<RequestId, Entry> read = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            RequestId id = new RequestId(in.readUTF(), in.readLong());
            int kind = in.readByte();
            if (kind < 0 || kind >= Reply.Kind.values().length) {
                throw new java.io.IOException("reply kind " + kind);
            }
            long expires = in.readLong();
            int length = in.readInt();
            if (length < 0 || length > in.available()) {   // a damaged length allocates nothing
                throw new java.io.IOException("a reply of " + length + " bytes in " + in.available());
            }
            byte[] body = new byte[length];
            in.readFully(body);
            read.put(id, new Entry(new Reply(Reply.Kind.values()[kind], body), expires));
        }
        if (!tombstones) {
            return new Contents(clock, read, ExecutedIds.read(in));
        }
        int t = in.readInt();
        if (t < 0) {
            throw new java.io.IOException("tombstone count " + t);
        }
        ExecutedIds ids = new ExecutedIds(Long.MAX_VALUE);
        for (Map.Entry<RequestId, Entry> e : read.entrySet()) {
            ids.add(e.getKey(), e.getValue().expiresAt(), clock);
        }
        for (int i = 0; i < t; i++) {
            ids.add(new RequestId(in.readUTF(), in.readLong()), in.readLong(), clock);
        }
        return new Contents(clock, read, ids.runs(clock));
    }

    /** Execution path, at a cut: replaces the whole cache with {@code c}, the group's time with its clock. */
    public synchronized void replaceWith(Contents c) {
        entries.clear();
        entries.putAll(c.entries);
        executed.replaceWith(c.executed);
        now = c.clock;
        clock.set(now);
    }

    /**
     * Execution path, at a cut (a backup restored): takes {@code c}'s replies and remembered ids if this cache holds
     * none, with the later of the two clocks; otherwise keeps its own. Deterministic at a position of the order.
     *
     * @return whether it took them
     */
    public synchronized boolean adoptIfEmpty(Contents c) {
        if (!isEmpty()) {
            return false;
        }
        entries.putAll(c.entries);
        executed.replaceWith(c.executed);
        now = Math.max(now, c.clock);
        clock.advance(now);
        return true;
    }

    /** Execution path: whether this cache holds no reply and remembers no id (a group that answered no FT call). */
    public synchronized boolean isEmpty() {
        return entries.isEmpty() && executed.isEmpty(now);
    }

    private void advance(long timestamp) {
        long t = clock.advance(timestamp);
        if (t > now) {
            now = t;
            evict();
            executed.expire(now, SWEEP_MILLIS);
        }
    }

    private void evict() {
        Iterator<Map.Entry<RequestId, Entry>> it = entries.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<RequestId, Entry> e = it.next();
            if (e.getValue().expiresAt() < now) {
                it.remove();   // its id stays remembered (ExecutedIds)
            } else if (entries.size() > maxEntries) {
                it.remove();
                if (earlyEvictions++ % 10_000 == 0) {
                    LOG.warn("reply cache full (fts.cache.max_entries={}): evicted {} replies before their "
                            + "requests expired; a retry of those gets IMP_LIMIT (COMPLETED_YES), it does not execute "
                            + "again", maxEntries, earlyEvictions);
                }
            } else {
                break;   // insertion order is delivery order: the rest are younger
            }
        }
    }
}
