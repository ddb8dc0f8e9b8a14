package org.fts.gc;

import java.util.Objects;

/**
 * The identity of one group member: a name unique within its group for the lifetime of the group. A member
 * that leaves (or crashes) and comes back should come back under a fresh name; bindings reject a join whose
 * name is already in the view.
 *
 * <p>Names of the form {@code <replica>#<incarnation>} (e.g. {@code r1#3fa2c1}) name one incarnation of a
 * replica: the process that restarts after a crash is a new member of the same replica. Quorums count
 * replicas, not members ({@link #replica()}): a restarted replica may join while its dead predecessor still
 * lingers in the view. A name without {@code #} is its own replica.
 */
public record MemberId(String name) implements Comparable<MemberId> {
    public MemberId {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("member name must not be blank");
        }
    }

    /** The replica this member is an incarnation of: the name up to its first {@code #}. */
    public String replica() {
        int hash = name.indexOf('#');
        return hash < 0 ? name : name.substring(0, hash);
    }

    @Override
    public int compareTo(MemberId o) {
        return name.compareTo(o.name);
    }

    @Override
    public String toString() {
        return name;
    }
}
