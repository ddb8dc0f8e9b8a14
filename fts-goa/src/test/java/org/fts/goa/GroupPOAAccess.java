package org.fts.goa;

import org.fts.gc.GroupChannel;

/**
 * The behaviour tests and the test kit's harness replica (from this test-jar) reach an adaptor's group channel here:
 * to inject faults into it and to read its view. Shipped code cannot ({@code GroupPOA.channel()} is package-private).
 */
public final class GroupPOAAccess {
    private GroupPOAAccess() {
    }

    /** The channel {@code goa} joined its group with. */
    public static GroupChannel channel(GroupPOA goa) {
        return goa.channel();
    }
}
