package org.fts.goa.frontend;

/** A client connection as the adaptor sees it: an opaque identity (placement counts them), open or not. */
public interface ClientConnection {
    boolean isOpen();
}
