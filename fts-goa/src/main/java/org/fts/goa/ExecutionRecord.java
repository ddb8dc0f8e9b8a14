package org.fts.goa;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * What execution keeps as replicated state besides the objects and the reply cache: the position (requests executed
 * since the group's first, the same at every replica at the same point of the order) and the group's calendar
 * ({@link GroupCalendar}). A snapshot carries both; written on the execution path or at a cut only. A state of a
 * format before positions (3 and older) leaves the position unknown (-1): the divergence check then compares nothing
 * and {@link RequestContext#position} is -1, until a serving replica casts {@code Cast.PositionBase} and every replica
 * counts from 0 at that point of the order.
 */
final class ExecutionRecord {
    private long position;
    private final GroupCalendar calendar = new GroupCalendar();
    /** The group's wire version (docs/upgrades.md): replicated, moved up by {@code Cast.WireUpgrade} only. */
    private volatile int wire = org.fts.gc.WireVersion.FIRST;

    /** Execution path: the next request's position, counting it; -1 while the position is unknown. */
    synchronized long next() {
        return position < 0 ? -1 : position++;
    }

    /** Whether the position is unknown: the state came from a format before positions (until {@link #align}). */
    synchronized boolean unknown() {
        return position < 0;
    }

    /** At a position of the order ({@code Cast.PositionBase}): an unknown position becomes 0, alike everywhere. */
    synchronized void align() {
        if (position < 0) {
            position = 0;
        }
    }

    synchronized long position() {
        return position;
    }

    GroupCalendar calendar() {
        return calendar;
    }

    /** The group's wire version at this position of the order. */
    int wire() {
        return wire;
    }

    /** On the delivery thread, at a {@code Cast.WireUpgrade}: the group speaks {@code version} from here. */
    void wire(int version) {
        wire = version;
    }

    /** The snapshot's form (format 5: the wire version after the calendar). */
    void writeTo(DataOutputStream out) throws IOException {
        out.writeLong(position());
        calendar.writeTo(out);
        out.writeByte(wire);
    }

    /** Read from a snapshot, not yet installed. */
    record Contents(long position, GroupCalendar.Contents calendar, int wire) {
        /** A state of a format before positions: the position is unknown until the group aligns it. */
        static final Contents UNKNOWN = new Contents(-1, GroupCalendar.Contents.EMPTY, org.fts.gc.WireVersion.FIRST);

        /** From a snapshot of {@code format} (4: no wire version, which is then the first). */
        static Contents read(DataInputStream in, int format) throws IOException {
            long position = in.readLong();
            if (position < -1) {
                throw new IOException("position " + position);
            }
            GroupCalendar.Contents calendar = GroupCalendar.Contents.read(in);
            int wire = format >= 5 ? in.readUnsignedByte() : org.fts.gc.WireVersion.FIRST;
            if (wire < org.fts.gc.WireVersion.FIRST) {
                throw new IOException("wire version " + wire);
            }
            return new Contents(position, calendar, wire);
        }
    }

    /** At a cut: becomes {@code c}. */
    synchronized void replaceWith(Contents c) {
        position = c.position();
        calendar.replaceWith(c.calendar());
        wire = c.wire();
    }
}
