package org.fts.goa.frontend;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * Frames a connection's bytes into whole GIOP messages (byte arrays, header included), and reassembles GIOP 1.1
 * and 1.2 fragments into the message they continue. The frame guard is here: a header that does not start with
 * {@code GIOP}, names a version other than 1.0-1.2, or declares more than the limit, or fragments adding up to
 * more, fail with {@link GiopException} or {@link TooLarge} when the header's last byte arrives, before anything
 * is allocated for the body.
 */
final class GiopFrames extends ByteToMessageDecoder {
    /** A message (or its fragments) declared more than {@code fts.giop.max_message_size}. */
    static final class TooLarge extends RuntimeException {
        TooLarge(String message) {
            super(message, null, false, false);
        }
    }

    private static final int MAGIC = 0x47494F50;
    private static final int MORE_FRAGMENTS = 2;

    private final int maxMessage;
    /** Messages being reassembled: by request id (GIOP 1.2), or under -1 (GIOP 1.1: one at a time). */
    private final Map<Integer, byte[]> partial = new HashMap<>();
    /** Since when (nanoTime) the connection holds part of a message; 0 when none. */
    private long partSince;
    private boolean failed;
    /** Takes each message's intake bytes when its header arrives ({@link GiopConnection#admit}). */
    private GiopConnection admitter;
    /** Whether the message whose header is at the front holds its intake bytes. */
    private boolean admitted;
    /** Whether the header at the front waited for the intake budget. */
    private boolean waited;
    /** Intake bytes held by the messages being reassembled, by key. */
    private final Map<Integer, Integer> partialTaken = new HashMap<>();

    /** A whole message, and the intake bytes its parts took. */
    record Framed(byte[] message, int taken) {
    }

    GiopFrames(int maxMessage) {
        this.maxMessage = maxMessage;
    }

    void admitter(GiopConnection c) {
        this.admitter = c;
    }

    /**
     * Netty's decoder asks for another read when a read produced no message and the channel is not read on its own;
     * a connection waiting for the intake budget must not read on (its bytes would pile up in the decoder).
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (admitter != null && admitter.waitingForBudget()) {
            ctx.fireChannelReadComplete();
        } else {
            super.channelReadComplete(ctx);
        }
    }

    /** Since when the connection holds an incomplete message, or 0 (the slow-sender guard reads it). */
    long partSince() {
        return partSince;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {   // the connection is being closed: one failure is reported once
            in.skipBytes(in.readableBytes());
            return;
        }
        try {
            frame(in, out);
        } catch (RuntimeException e) {
            failed = true;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    private void frame(ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= 12) {
            int r = in.readerIndex();
            if (in.getInt(r) != MAGIC) {
                throw new GiopException("a message that does not start with GIOP");
            }
            int major = in.getByte(r + 4);
            int minor = in.getByte(r + 5);
            if (major != 1 || minor < 0 || minor > 2) {
                throw new GiopException("GIOP version " + major + "." + minor + " (1.0-1.2 are spoken)");
            }
            boolean little = (in.getByte(r + 6) & 1) != 0;
            long size = little ? in.getUnsignedIntLE(r + 8) : in.getUnsignedInt(r + 8);
            if (size > maxMessage) {
                throw new TooLarge("a GIOP header declaring " + size + " bytes");
            }
            if (!admitted) {   // the budget is charged when the header arrives, before the body is read
                if (admitter != null && !admitter.admit(12 + (int) size)) {
                    waited = true;
                    partSince = 0;   // waiting for the budget is the replica's doing, not a slow sender's
                    return;   // the connection is not read until replies free some; the header waits here
                }
                admitted = true;
                if (waited) {   // the slow-sender guard times the client from now: the wait was the replica's
                    waited = false;
                    partSince = System.nanoTime();
                }
            }
            if (in.readableBytes() < 12 + size) {
                mark();
                return;
            }
            byte[] m = new byte[12 + (int) size];
            in.readBytes(m);
            admitted = false;
            Framed whole = assemble(m, minor, 12 + (int) size);
            if (whole != null) {
                out.add(whole);
            }
        }
        if (in.readableBytes() > 0 || !partial.isEmpty()) {
            mark();   // part of a message, or of a fragmented one: the slow-sender guard times it
        } else {
            partSince = 0;
        }
    }

    private void mark() {
        if (partSince == 0) {
            partSince = System.nanoTime();
        }
    }

    /** {@code m}, or the message it completes; null while fragments are still to come. */
    private Framed assemble(byte[] m, int minor, int taken) {
        int type = m[7];
        boolean more = (m[6] & MORE_FRAGMENTS) != 0 && minor >= 1;
        if (type != Giop.FRAGMENT) {
            if (!more) {
                return new Framed(m, taken);
            }
            partialTaken.put(minor == 1 ? -1 : idOf(m), taken);
            int key = minor == 1 ? -1 : idOf(m);
            if (held() + m.length - 12L > maxMessage) {
                throw new TooLarge("GIOP fragments of several messages adding up to more than the limit");
            }
            if (partial.put(key, m) != null) {
                throw new GiopException("a fragmented message started while message " + key + " is incomplete");
            }
            return null;
        }
        int key = minor == 1 ? -1 : idOf(m);
        byte[] first = partial.remove(key);
        if (first == null) {
            throw new GiopException("a fragment of no message (request " + key + ")");
        }
        int header = minor == 1 ? 12 : 16;
        long total = (long) first.length + m.length - header;
        if (total - 12 > maxMessage || held() + m.length - header > maxMessage) {
            throw new TooLarge("GIOP fragments adding up to " + (total - 12) + " bytes");
        }
        byte[] joined = Arrays.copyOf(first, (int) total);
        System.arraycopy(m, header, joined, first.length, m.length - header);
        boolean little = (joined[6] & 1) != 0;
        int size = joined.length - 12;
        for (int i = 0; i < 4; i++) {
            joined[little ? 8 + i : 11 - i] = (byte) (size >>> (8 * i));
        }
        int all = partialTaken.merge(key, taken, Integer::sum);
        if (more) {
            partial.put(key, joined);
            return null;
        }
        partialTaken.remove(key);
        joined[6] &= ~MORE_FRAGMENTS;
        return new Framed(joined, all);
    }

    /** Bytes of the messages being reassembled, over all of them: bounded by the limit, like one message. */
    private long held() {
        long n = 0;
        for (byte[] p : partial.values()) {
            n += p.length - 12;
        }
        return n;
    }

    /** The request id that follows a GIOP 1.2 header (a Fragment's, or the first message's). */
    private static int idOf(byte[] m) {
        if (m.length < 16) {
            throw new GiopException("a GIOP 1.2 fragment too short for its request id");
        }
        boolean little = (m[6] & 1) != 0;
        return little ? (m[12] & 0xff) | (m[13] & 0xff) << 8 | (m[14] & 0xff) << 16 | m[15] << 24
                : m[12] << 24 | (m[13] & 0xff) << 16 | (m[14] & 0xff) << 8 | (m[15] & 0xff);
    }
}
