package org.fts.goa.frontend;

/**
 * What the front end hands the adaptor: the group's requests, on the connection's event-loop thread. An
 * implementation must not block that thread for long (every connection of the loop waits), and answers each
 * request that expects a reply exactly once through its {@link Exchange}, from any thread.
 */
public interface GroupRequests {
    /** A request for a group object arrived on {@code exchange}'s connection. */
    void request(Exchange exchange);

    /**
     * A connection's read burst begins ({@code true}: its first request of one read) or ends ({@code false}, once the
     * read's messages were handed over): the requests of one read are in the batching doorway together, as requests
     * that arrive together on request threads are (the adaptive doorway sends when it is empty).
     */
    default void burst(boolean begins) {
    }

    /** Whether {@code objectKey} names one of the group's objects (a LocateRequest's answer). */
    boolean knows(byte[] objectKey);

    /**
     * The service context that carries a system exception's message to the client (CORBA's
     * ExceptionDetailMessage, as the client's ORB expects it), or null for none.
     */
    default org.omg.IOP.ServiceContext exceptionDetail(String message) {
        return null;
    }
}
