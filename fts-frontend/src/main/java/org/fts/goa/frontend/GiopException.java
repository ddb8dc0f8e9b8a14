package org.fts.goa.frontend;

/** A GIOP message the front end cannot read: the connection gets a GIOP MessageError and is closed. */
final class GiopException extends RuntimeException {
    GiopException(String message) {
        super(message, null, false, false);
    }
}
