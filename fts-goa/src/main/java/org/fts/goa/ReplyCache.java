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
 * the local clock. Bounds: an entry lives {@code ttlMillis} of that time, and beyond {@code maxEntries} the
 * oldest go; a retry of an evicted request executes again, so size the bounds for the clients' retry window.
 */
final class ReplyCache {
    private record Entry(Reply reply, long expiresAt) {
    }

    private final int maxEntries;
    private final long ttlMillis;
    private final LinkedHashMap<RequestId, Entry> entries = new LinkedHashMap<>();
    private long now;   // the latest delivered timestamp: this cache's deterministic clock

    ReplyCache(int maxEntries, long ttlMillis) {
        this.maxEntries = maxEntries;
        this.ttlMillis = ttlMillis;
    }

    /** Execution path: the reply of {@code id}, if cached, as of a request stamped {@code timestamp}. */
    synchronized Reply lookup(RequestId id, long timestamp) {
        advance(timestamp);
        Entry e = entries.get(id);
        return e == null ? null : e.reply();
    }

    /** Execution path: caches the reply of a request stamped {@code timestamp}. */
    synchronized void put(RequestId id, Reply reply, long timestamp) {
        advance(timestamp);
        entries.putIfAbsent(id, new Entry(reply, now + ttlMillis));
        evict();
    }

    /** Foreground path (a client's retry arriving): a read that changes nothing. */
    synchronized Reply peek(RequestId id) {
        Entry e = entries.get(id);
        return e == null ? null : e.reply();
    }

    synchronized int size() {
        return entries.size();
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
            if (entries.size() > maxEntries || e.getValue().expiresAt() < now) {
                it.remove();
            } else {
                break;   // insertion order is delivery order: the rest are younger
            }
        }
    }
}
