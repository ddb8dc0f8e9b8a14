package org.fts.goa;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Stage 9: every replica keeps every reply, so that a retry reaching any replica gets the original answer
 * instead of a second execution.
 *
 * <p>Whether a request already executed decides whether it executes, so the cache's contents must be the same
 * at every replica at the same point of the total order. Entries are therefore added and evicted only on the
 * execution path, and time there is the delivered requests' own timestamps (set once by the origin), never
 * the local clock.
 *
 * <p>Only replies a retry can ask for are kept: those of FT clients (FT_REQUEST), until the request's
 * expiration plus {@code marginMillis} (for clock skew between client and replica), but never longer than
 * {@code ttlMillis} after the request. Beyond {@code maxEntries} the oldest replies go first, expired or not;
 * a reply evicted before its request expired leaves a <em>tombstone</em> (its request id, about 100 bytes) until
 * then, so that the request never executes twice: a retry, or a second cast of it ordered late (an attempt a
 * replica cast before the client gave up on it and asked another), gets {@code IMP_LIMIT} (COMPLETED_YES)
 * instead of the lost reply. Size {@code maxEntries} for the replies a retry window holds (request rate ×
 * {@code fts.client.request_duration}); each entry costs its reply's bytes plus about 200 bytes. Tombstones are
 * bounded too ({@link #TOMBSTONES_PER_ENTRY} per entry); past that the oldest go, and only then can a request
 * execute twice. Both kinds of early eviction are counted and logged.
 */
final class ReplyCache {
    private record Entry(Reply reply, long expiresAt) {
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ReplyCache.class);

    /** Tombstones kept per {@code maxEntries}: a retry window {@code 1 + 4} times the configured one. */
    static final int TOMBSTONES_PER_ENTRY = 4;

    private final int maxEntries;
    private long lostTombstones;
    /** Requests executed whose replies went before they expired: id to the expiry the reply had. */
    private final LinkedHashMap<RequestId, Long> tombstones = new LinkedHashMap<>();
    private final long ttlMillis;
    private final long marginMillis;
    private long earlyEvictions;
    private final LinkedHashMap<RequestId, Entry> entries = new LinkedHashMap<>();
    private long now;   // the latest delivered timestamp: this cache's deterministic clock

    ReplyCache(int maxEntries, long ttlMillis, long marginMillis) {
        this.maxEntries = maxEntries;
        this.ttlMillis = ttlMillis;
        this.marginMillis = marginMillis;
    }

    /**
     * How long to keep the reply of an FT request captured at {@code now} whose client retries it until
     * {@code expirationMillis}: its expiration plus the margin, at least the margin, at most the TTL.
     */
    long keepUntil(long now, long expirationMillis) {
        return Math.min(now + ttlMillis, Math.max(now, expirationMillis) + marginMillis);
    }

    /** Execution path: the reply of {@code id}, if cached, as of a request stamped {@code timestamp}. */
    synchronized Reply lookup(RequestId id, long timestamp) {
        advance(timestamp);
        Entry e = entries.get(id);
        return e == null ? null : e.reply();
    }

    /** Execution path: caches the reply of a request stamped {@code timestamp}, until {@code keepUntil}. */
    synchronized void put(RequestId id, Reply reply, long timestamp, long keepUntil) {
        advance(timestamp);
        entries.putIfAbsent(id, new Entry(reply, keepUntil));
        evict();
    }


    /**
     * Execution path, after {@link #lookup} found nothing: whether {@code id} executed already and its reply was
     * evicted before its request expired (it must not execute again).
     */
    synchronized boolean evictedEarly(RequestId id) {
        return tombstones.containsKey(id);
    }

    /**
     * Execution path, after {@link #lookup}: whether the deterministic clock passed {@code keepUntil}, the time until
     * which a request's reply would have been kept for its retries. Such a request, ordered this late (a cast that
     * a replica appended again long after its client gave up: a raft member cut off for a while), must not execute:
     * its client has had its answer (a failure), and its reply, or tombstone, may be gone already.
     */
    synchronized boolean pastKeeping(long keepUntil) {
        return keepUntil > 0 && now > keepUntil;
    }

    /** Foreground path (a client's retry arriving): a read that changes nothing. */
    synchronized Reply peek(RequestId id) {
        Entry e = entries.get(id);
        return e == null ? null : e.reply();
    }

    synchronized int size() {
        return entries.size();
    }

    /** Replies evicted before their requests expired (the cache was full): a retry of one gets IMP_LIMIT. */
    synchronized long earlyEvictions() {
        return earlyEvictions;
    }

    /** Execution path, at a cut (state transfer): every entry, oldest first, and the cache's clock. */
    synchronized void writeTo(java.io.DataOutputStream out) throws java.io.IOException {
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
        out.writeInt(tombstones.size());
        for (Map.Entry<RequestId, Long> t : tombstones.entrySet()) {
            out.writeUTF(t.getKey().clientId());
            out.writeLong(t.getKey().retentionId());
            out.writeLong(t.getValue());
        }
    }

    /** A cache's whole contents as {@link #writeTo} wrote them, parsed (a state transfer's part). */
    static final class Contents {
        private final long clock;
        private final LinkedHashMap<RequestId, Entry> entries;
        private final LinkedHashMap<RequestId, Long> tombstones;

        private Contents(long clock, LinkedHashMap<RequestId, Entry> entries, LinkedHashMap<RequestId, Long> tombstones) {
            this.clock = clock;
            this.entries = entries;
            this.tombstones = tombstones;
        }
    }

    /** Parses what {@link #writeTo} wrote; {@link java.io.IOException} if it is truncated or malformed. */
    static Contents read(java.io.DataInputStream in) throws java.io.IOException {
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
        int t = in.readInt();
        if (t < 0) {
            throw new java.io.IOException("tombstone count " + t);
        }
        LinkedHashMap<RequestId, Long> stones = new LinkedHashMap<>();
        for (int i = 0; i < t; i++) {
            stones.put(new RequestId(in.readUTF(), in.readLong()), in.readLong());
        }
        return new Contents(clock, read, stones);
    }

    /** Execution path, at a cut: replaces the whole cache with {@code c}. */
    synchronized void replaceWith(Contents c) {
        entries.clear();
        entries.putAll(c.entries);
        tombstones.clear();
        tombstones.putAll(c.tombstones);
        now = c.clock;
    }

    /**
     * Execution path, at a cut (a backup restored): takes {@code c}'s replies and tombstones if this cache holds
     * none, with the later of the two clocks; otherwise keeps its own. Deterministic at a position of the order.
     *
     * @return whether it took them
     */
    synchronized boolean adoptIfEmpty(Contents c) {
        if (!entries.isEmpty() || !tombstones.isEmpty()) {
            return false;
        }
        entries.putAll(c.entries);
        tombstones.putAll(c.tombstones);
        now = Math.max(now, c.clock);
        return true;
    }

    /** Execution path: whether this cache holds no reply and no tombstone (a group that answered no FT call). */
    synchronized boolean isEmpty() {
        return entries.isEmpty() && tombstones.isEmpty();
    }

    private void advance(long timestamp) {
        if (timestamp > now) {
            now = timestamp;
            evict();
        }
    }

    private void evict() {
        Iterator<Map.Entry<RequestId, Entry>> it = entries.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<RequestId, Entry> e = it.next();
            if (e.getValue().expiresAt() < now) {
                it.remove();
            } else if (entries.size() > maxEntries) {
                it.remove();
                tombstones.put(e.getKey(), e.getValue().expiresAt());
                if (earlyEvictions++ % 10_000 == 0) {
                    LOG.warn("reply cache full (fts.cache.max_entries={}): evicted {} replies before their "
                            + "requests expired; a retry of those gets IMP_LIMIT (COMPLETED_YES), it does not execute "
                            + "again", maxEntries, earlyEvictions);
                }
            } else {
                break;   // insertion order is delivery order: the rest are younger
            }
        }
        Iterator<Map.Entry<RequestId, Long>> stones = tombstones.entrySet().iterator();
        while (stones.hasNext()) {
            Map.Entry<RequestId, Long> t = stones.next();
            if (t.getValue() < now) {
                stones.remove();
            } else if (tombstones.size() > (long) maxEntries * TOMBSTONES_PER_ENTRY) {
                stones.remove();
                if (lostTombstones++ % 10_000 == 0) {
                    LOG.error("reply cache far past its bound (fts.cache.max_entries={}): forgot {} requests that "
                            + "executed before they expired; a retry of those executes again", maxEntries,
                            lostTombstones);
                }
            } else {
                break;   // eviction order is delivery order
            }
        }
    }
}
