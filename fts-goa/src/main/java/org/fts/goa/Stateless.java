package org.fts.goa;

/**
 * Declares a servant that holds no state, so that a replica joining the group has nothing to fetch for it.
 * Every servant activated on a {@link GroupPOA} is either this or {@code FTS::Checkpointable}
 * ({@link org.fts.checkpoint.CheckpointableOperations}); any other is refused at activation, naming the
 * object, because a replica that joins later could not obtain its state (docs/state-transfer.md).
 */
public interface Stateless {
}
