package org.fts.goa.frontend;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.RejectedExecutionException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;

/**
 * Writes a connection's GIOP messages from any thread, never blocking it (docs/frontend.md, "Replies").
 *
 * <p>With a {@linkplain DirectNioChannels direct channel} and nothing of the connection's left in Netty, the calling
 * thread writes the message to the socket itself, non-blocking: the event loop is not woken for it. Whatever the
 * socket does not take, and every message while Netty still holds some, goes to the event loop, in the order sent.
 * Guarantees: messages never interleave on the wire; a client that stops reading fills Netty's buffer past the write
 * high-water mark as before, so its connection stops being read and no other client waits. On epoll or TLS the event
 * loop writes everything.
 */
final class ReplyWriter {
    /** The most one direct write offers the socket: the JDK keeps a direct buffer that size for the writing thread. */
    static final int SLICE = 64 << 10;

    private final Channel channel;
    /** The socket messages may be written to directly; null when the event loop writes everything. */
    private final SocketChannel direct;
    /** Messages handed to the event loop and not yet written (or failed); guarded by this. Direct writes only at 0. */
    private int onLoop;
    /** Messages written whole by their senders, and begun by them but finished by the loop; guarded by this. */
    private long directWrites;
    private long partialWrites;

    ReplyWriter(Channel channel, boolean tls) {
        this.channel = channel;
        this.direct = !tls && channel instanceof DirectNioChannels.Connection c ? c.socket() : null;
    }

    /** Sends {@code message} (a whole GIOP message) from any thread; dropped if the connection is closed. */
    void send(byte[] message) {
        send(message, false);
    }

    /** Sends {@code message}, then closes the connection (after a MessageError). */
    void sendAndClose(byte[] message) {
        send(message, true);
    }

    private void send(byte[] message, boolean close) {
        if (direct == null) {
            toLoop(Unpooled.wrappedBuffer(message), close, false);
            return;
        }
        synchronized (this) {
            int from = 0;
            if (onLoop == 0) {
                ByteBuffer b = ByteBuffer.wrap(message);
                try {
                    // slices: the JDK copies what it is offered into a direct buffer it keeps for the thread
                    int took;
                    do {
                        b.limit(Math.min(message.length, b.position() + SLICE));
                        took = direct.write(b);
                    } while (took > 0 && !b.hasRemaining() && b.limit() < message.length);
                } catch (IOException closedOrReset) {
                    channel.close();   // the client fails over, as for any closed connection
                    return;
                }
                b.limit(message.length);
                if (!b.hasRemaining()) {
                    directWrites++;
                    if (close) {
                        channel.close();
                    }
                    return;
                }
                from = b.position();   // the socket's buffer is full: the loop writes the rest when it drains
                partialWrites++;
            }
            onLoop++;
            toLoop(Unpooled.wrappedBuffer(message, from, message.length - from), close, true);
        }
    }

    private void toLoop(ByteBuf bytes, boolean close, boolean counted) {
        if (!counted) {   // the loop writes everything: whole messages, reordered at most (GIOP matches by id)
            if (close) {
                channel.writeAndFlush(bytes).addListener(ChannelFutureListener.CLOSE);
            } else {
                channel.writeAndFlush(bytes, channel.voidPromise());
            }
            return;
        }
        // Always as a task, even on the loop: a write made on the loop runs at once, ahead of the tasks queued
        // before it, and would land between the halves of a message whose rest is still queued.
        try {
            channel.eventLoop().execute(() -> channel.writeAndFlush(bytes).addListener(f -> {
                if (close || !f.isSuccess()) {
                    channel.close();   // before any direct write can follow (the close runs at once on the loop)
                }
                loopWritten();
            }));
        } catch (RejectedExecutionException closing) {
            // the listener is closing (the replica leaves): the client fails over, as for a closed connection
            bytes.release();
            onLoop--;
        }
    }

    private synchronized void loopWritten() {
        onLoop--;
    }

    /** Messages written whole by their senders, not by the event loop (tests). */
    synchronized long directWrites() {
        return directWrites;
    }

    /** Messages the socket took only part of from their senders; the event loop wrote the rest (tests). */
    synchronized long partialWrites() {
        return partialWrites;
    }
}
