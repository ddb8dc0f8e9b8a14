package org.fts.replica;

/**
 * A jar's servants, for the shipped replica runner ({@link ReplicaRunner}): the runner finds every provider on
 * its class path with {@link java.util.ServiceLoader} (a jar lists its class in {@code
 * META-INF/services/org.fts.replica.ServantProvider}), or only those that {@code fts.replica.servants} names.
 *
 * <p>Guarantees: {@link #activate} is called once per replica, on the main thread, after the adaptor exists and
 * before its POA manager is activated, so the objects exist when the replica first serves and joins the group's
 * state. Every replica of a group must activate the same objects under the same ids with servants of the same
 * version (docs/guide.md, "What a servant may do").
 */
public interface ServantProvider {
    /** A short name, for {@code fts.replica.servants} and the logs. */
    String name();

    /**
     * Activates this provider's objects through {@code servants}.
     *
     * @throws Exception to stop the replica before it serves (the runner names the provider and exits)
     */
    void activate(Servants servants) throws Exception;
}
