package org.fts.goa.intake;

import java.util.ArrayList;
import java.util.List;

/**
 * The replicas an object group reference names, and the reference's version (FT-CORBA
 * {@code object_group_ref_version}). It starts as {@code fts.replicas}, version 1; a replica whose endpoint
 * is not in that list announces it through the total order when it joins, and every replica appends it at
 * the same point of the order, so the version means the same list everywhere. Clients learn the new list
 * from FT_GROUP_VERSION on replies (docs/failover.md). Endpoints are never removed: a replica that is down
 * stays a redirect target, and the client's interceptor moves past it.
 */
public final class Membership {
    /** One version of the list. */
    public record Snapshot(long version, List<String> endpoints) {
    }

    private volatile Snapshot current;

    public Membership(List<String> configured) {
        this.current = new Snapshot(1, List.copyOf(configured));
    }

    public Snapshot current() {
        return current;
    }

    /** State transfer: replaces the list with the provider's, as it was at the cut. */
    public synchronized void restore(Snapshot s) {
        current = new Snapshot(s.version(), List.copyOf(s.endpoints()));
    }

    /** Delivery path: a replica announced {@code endpoint}; true if the list changed (a new version). */
    public synchronized boolean add(String endpoint) {
        Snapshot s = current;
        if (s.endpoints().contains(endpoint)) {
            return false;
        }
        List<String> more = new ArrayList<>(s.endpoints());
        more.add(endpoint);
        current = new Snapshot(s.version() + 1, List.copyOf(more));
        return true;
    }
}
