package org.fts.gc;

import java.util.Objects;

/**
 * The identity of one group member: a name unique within its group for the lifetime of the group. A member
 * that leaves (or crashes) and comes back should come back under a fresh name; bindings reject a join whose
 * name is already in the view.
 */
public record MemberId(String name) implements Comparable<MemberId> {
    public MemberId {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("member name must not be blank");
        }
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
