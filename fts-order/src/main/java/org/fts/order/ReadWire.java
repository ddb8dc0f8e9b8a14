package org.fts.order;

import java.nio.ByteBuffer;

/**
 * The read-index messages of {@link TotalOrder} (docs/reads.md), one record per type, encoded like {@link Wire}'s:
 * a type byte, then big-endian longs. An epoch travels as its view id; its sequencer is the sender or the receiver.
 */
final class ReadWire {
    /** A message of the read-index round. */
    sealed interface ReadMsg extends Wire.Msg permits Index, Ping, Pong, Answer {
    }

    /** Member to its sequencer: confirm read {@code id} of a member of epoch {@code epochView}. */
    record Index(long epochView, long id) implements ReadMsg {
    }

    /** Sequencer to every member: do you still follow my epoch {@code epochView}? Round {@code round}. */
    record Ping(long epochView, long round) implements ReadMsg {
    }

    /**
     * Member to the sequencer: I follow your open epoch {@code epochView}, as of round {@code round}; and I join no
     * newer epoch's recovery for {@code lease} nanoseconds from before I sent this (0: no lease granted).
     */
    record Pong(long epochView, long round, long lease) implements ReadMsg {
    }

    /**
     * Sequencer to a member: read {@code id} may go on once the member delivered up to {@code position}; a
     * negative position refuses it (the member orders its reads).
     */
    record Answer(long epochView, long id, long position) implements ReadMsg {
    }

    static final byte INDEX = 22;
    static final byte PING = 23;
    static final byte PONG = 24;
    static final byte ANSWER = 25;

    private ReadWire() {
    }

    static byte[] encode(ReadMsg m) {
        if (m instanceof Index i) {
            return ByteBuffer.allocate(17).put(INDEX).putLong(i.epochView()).putLong(i.id()).array();
        } else if (m instanceof Ping p) {
            return ByteBuffer.allocate(17).put(PING).putLong(p.epochView()).putLong(p.round()).array();
        } else if (m instanceof Pong p) {
            return ByteBuffer.allocate(25).put(PONG).putLong(p.epochView()).putLong(p.round()).putLong(p.lease())
                    .array();
        }
        Answer a = (Answer) m;
        return ByteBuffer.allocate(25).put(ANSWER).putLong(a.epochView()).putLong(a.id()).putLong(a.position()).array();
    }

    /** Whether {@code type} is one of these messages'. */
    static boolean owns(byte type) {
        return type >= INDEX && type <= ANSWER;
    }

    static ReadMsg decode(byte type, ByteBuffer b) {
        return switch (type) {
            case INDEX -> new Index(b.getLong(), b.getLong());
            case PING -> new Ping(b.getLong(), b.getLong());
            case PONG -> new Pong(b.getLong(), b.getLong(), b.getLong());
            case ANSWER -> new Answer(b.getLong(), b.getLong(), b.getLong());
            default -> throw new IllegalArgumentException("not a read message: " + type);
        };
    }
}
