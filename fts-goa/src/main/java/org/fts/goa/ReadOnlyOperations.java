package org.fts.goa;

import java.util.Set;

/**
 * Declares which of a servant's operations only read its state (docs/reads.md). A declared read is executed only at
 * the replica that received it, once that replica has applied every write any replica could have answered before
 * the read arrived (a read barrier of the group layer); it is not ordered, not executed elsewhere and its reply is
 * not cached, so a retry reads again. The same can be declared in configuration, {@code fts.reads}.
 *
 * <p>A declared read that changes the servant's state is the servant's bug: the replicas' states would diverge. With
 * {@code fts.reads.check=true} (tests and trials) every declared read is checked: a read that changed the state gets
 * INTERNAL and stops its replica.
 */
public interface ReadOnlyOperations {

    /** The IDL names of this servant's operations that only read its state, as they travel (e.g. {@code _get_x}). */
    Set<String> readOperations();
}
