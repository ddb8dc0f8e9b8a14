package org.fts.goa;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * What execution keeps as replicated state besides the objects and the reply cache: the position (requests executed
 * since the group's first, the same at every replica at the same point of the order) and the group's calendar
 * ({@link GroupCalendar}). A snapshot carries both; written on the execution path or at a cut only.
 */
final class ExecutionRecord {
    private long position;
    private final GroupCalendar calendar = new GroupCalendar();

    /** Execution path: the next request's position; counts it. */
    synchronized long next() {
        return position++;
    }

    synchronized long position() {
        return position;
    }

    GroupCalendar calendar() {
        return calendar;
    }

    void writeTo(DataOutputStream out) throws IOException {
        out.writeLong(position());
        calendar.writeTo(out);
    }

    /** Read from a snapshot, not yet installed. */
    record Contents(long position, GroupCalendar.Contents calendar) {
        static final Contents EMPTY = new Contents(0, GroupCalendar.Contents.EMPTY);

        static Contents read(DataInputStream in) throws IOException {
            long position = in.readLong();
            if (position < 0) {
                throw new IOException("position " + position);
            }
            return new Contents(position, GroupCalendar.Contents.read(in));
        }
    }

    /** At a cut: becomes {@code c}. */
    synchronized void replaceWith(Contents c) {
        position = c.position();
        calendar.replaceWith(c.calendar());
    }
}
