package org.fts.gc;

/** The group layer could not do what was asked: join, broadcast, send. The message says why. */
public class GroupException extends RuntimeException {
    public GroupException(String message) {
        super(message);
    }

    public GroupException(String message, Throwable cause) {
        super(message, cause);
    }
}
