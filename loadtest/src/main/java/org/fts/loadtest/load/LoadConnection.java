package org.fts.loadtest.load;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

import org.fts.ft.FtRequestContext;

/**
 * One client connection of the driver: a non-blocking socket to one server endpoint, bound by a first call made
 * when it opens (it carries the code sets, and follows LOCATION_FORWARD), its request buffer, and the intended send time of
 * every call in flight, by request id. Calls are sent by one thread (the connection's I/O loop in a closed
 * loop, the pacer in an open loop) and their replies read by the I/O loop; the in-flight slots are the only
 * state the two share.
 */
final class LoadConnection {
    /** Calls in flight on one connection, at most (a power of two: request ids index the slots). */
    static final int MAX_IN_FLIGHT = 1024;
    /** A request that could not be written for this long (the server stopped reading) kills its connection. */
    private static final long STALLED_SEND_NANOS = 10_000_000_000L;
    /** LOCATION_FORWARDs one connection follows at most before its first call is answered. */
    private static final int MAX_FORWARDS = 8;

    /** Where the I/O loop reports each call that ended. */
    interface Sink {
        /** @param ok whether the reply said NO_EXCEPTION */
        void ended(long intendedNanos, long nowNanos, boolean ok);
    }

    final int index;
    final String endpoint;
    private final SocketChannel channel;
    private final RequestTemplate request;
    private final ByteBuffer steady;
    /** Null, or the request sent as every {@link #writeEvery}th call instead of {@link #request} (a read/write mix). */
    private final RequestTemplate write;
    private final ByteBuffer steadyWrite;
    private final int writeEvery;
    private final long expirationMillis;
    private ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);
    private final AtomicLongArray intended = new AtomicLongArray(MAX_IN_FLIGHT);
    private final AtomicInteger inFlight = new AtomicInteger();
    private int lastId;
    private volatile boolean dead;

    /** @param lastId the id of the call made already on the connection (its first, which carried the code sets) */
    private LoadConnection(int index, String endpoint, SocketChannel channel, RequestTemplate request,
                           RequestTemplate write,
                           int writeEvery, int lastId, long expirationMillis) {
        this.index = index;
        this.endpoint = endpoint;
        this.channel = channel;
        this.request = request;
        this.write = write;
        this.writeEvery = writeEvery;
        this.lastId = lastId;
        this.steady = request.newBuffer();
        this.steadyWrite = write == null ? null : write.newBuffer();
        this.expirationMillis = expirationMillis;
    }

    /**
     * Connects to {@code host:port} (TCP_NODELAY, as ORBs do) and makes the connection's requests with {@code
     * call} ({@code codeSets} is set on the first one).
     *
     * @param expirationMillis how long an FT_REQUEST says the call may be retried (unused without FT)
     */
    static LoadConnection open(int index, String host, int port, RequestTemplate.Builder call, long expirationMillis)
            throws IOException {
        return open(index, host, port, call, null, 0, expirationMillis);
    }

    /** As above; with {@code writes}, every {@code writeEvery}th call is that request instead. */
    static LoadConnection open(int index, String host, int port, RequestTemplate.Builder call,
                               RequestTemplate.Builder writes,
                               int writeEvery, long expirationMillis) throws IOException {
        for (int forwards = 0; ; forwards++) {
            SocketChannel ch = connect(host, port);
            GiopReply.Forward to = bind(ch, call, expirationMillis);
            if (to == null) {
                RequestTemplate w = writes == null ? null : writes.codeSets(false).build();
                return new LoadConnection(index, host + ":" + port, ch, call.codeSets(false).build(), w, writeEvery, 1,
                        expirationMillis);
            }
            ch.close();
            if (forwards == MAX_FORWARDS) {
                throw new IOException("more than " + MAX_FORWARDS + " LOCATION_FORWARDs from " + host + ":" + port);
            }
            host = to.host();
            port = to.port();
            call.objectKey(to.objectKey());
            if (writes != null) {
                writes.objectKey(to.objectKey());
            }
        }
    }

    /**
     * The connection's first call, as an ORB makes it when it binds a reference: sent and answered in blocking
     * mode, before the run; returns where a LOCATION_FORWARD reply sends it, or null once a server answered it.
     */
    private static GiopReply.Forward bind(SocketChannel ch, RequestTemplate.Builder call, long expirationMillis)
            throws IOException {
        RequestTemplate first = call.codeSets(true).build();
        ByteBuffer b = first.newBuffer();
        first.patch(b, 1, 1, first.hasFtRequest()
                ? FtRequestContext.timeT(System.currentTimeMillis() + expirationMillis) : 0);
        while (b.hasRemaining()) {
            ch.write(b);
        }
        ByteBuffer in = ByteBuffer.allocate(64 * 1024);
        int len;
        while ((len = GiopReply.frameLength(in, 0, in.position())) < 0 || in.position() < len) {
            if (len > in.capacity()) {
                throw new IOException("a first reply of " + len + " bytes");
            }
            if (ch.read(in) < 0) {
                throw new IOException("the server closed the connection before answering its first call");
            }
        }
        if (GiopReply.type(in, 0) != GiopReply.REPLY) {
            throw new IOException("the server answered the first call with GIOP message type " + GiopReply.type(in, 0));
        }
        ch.configureBlocking(false);
        return GiopReply.status(in, 0) == GiopReply.LOCATION_FORWARD ? GiopReply.forward(in, 0) : null;
    }

    private static SocketChannel connect(String host, int port) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.connect(new InetSocketAddress(host, port));
            return ch;
        } catch (IOException e) {
            ch.close();
            throw new IOException("cannot connect to " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    SocketChannel channel() {
        return channel;
    }

    int inFlight() {
        return inFlight.get();
    }

    boolean dead() {
        return dead;
    }

    /**
     * Sends one call intended at {@code intendedNanos} (open loop: its slot in the schedule; closed loop: now).
     * The caller keeps in-flight calls under {@link #MAX_IN_FLIGHT}. Returns false on a dead connection.
     */
    boolean send(long intendedNanos) {
        if (dead) {
            return false;
        }
        int id = ++lastId;
        intended.set(id & (MAX_IN_FLIGHT - 1), intendedNanos);
        boolean w = write != null && id % writeEvery == 0;
        ByteBuffer b = w ? steadyWrite : steady;
        RequestTemplate r = w ? write : request;
        long expiration = r.hasFtRequest() ? FtRequestContext.timeT(System.currentTimeMillis() + expirationMillis) : 0;
        r.patch(b, id, id, expiration);   // retention id = request id: unique per connection's client id
        inFlight.incrementAndGet();
        try {
            long giveUpAt = 0;
            while (b.hasRemaining()) {
                if (channel.write(b) == 0) {   // the socket's send buffer is full: the server does not read
                    long now = System.nanoTime();
                    if (giveUpAt == 0) {
                        giveUpAt = now + STALLED_SEND_NANOS;
                    } else if (now - giveUpAt > 0) {
                        dead = true;   // counted as a dead connection; the run goes on and ends on time
                        return false;
                    }
                    LockSupport.parkNanos(10_000);
                }
            }
            return true;
        } catch (IOException e) {
            dead = true;
            return false;
        }
    }

    /** From now on reads block until something arrives (a connection that is its loop's only one). */
    void blocking() throws IOException {
        channel.configureBlocking(true);
    }

    /**
     * Reads what has arrived (blocking for it on a {@link #blocking()} connection) and reports every call it
     * ends; returns the number of calls that failed because the connection died (a close, an error message, lost
     * framing), 0 normally.
     */
    int read(Sink sink) {
        if (dead) {
            return 0;
        }
        try {
            if (channel.read(in) < 0) {
                return die();
            }
            long nowNanos = System.nanoTime();
            int pos = 0;
            int limit = in.position();
            for (int len = GiopReply.frameLength(in, pos, limit); len > 0; len = GiopReply.frameLength(in, pos, limit)) {
                if (len > in.capacity()) {
                    grow(len);
                    return 0;
                }
                if (limit - pos < len) {
                    break;
                }
                int type = GiopReply.type(in, pos);
                if (type != GiopReply.REPLY || !GiopReply.isGiop12(in, pos)) {
                    return die();   // CloseConnection, MessageError, or something this driver never asked for
                }
                int id = GiopReply.requestId(in, pos);
                inFlight.decrementAndGet();
                sink.ended(intended.get(id & (MAX_IN_FLIGHT - 1)), nowNanos,
                        GiopReply.status(in, pos) == GiopReply.NO_EXCEPTION);
                pos += len;
            }
            in.limit(limit).position(pos);
            in.compact();
            return 0;
        } catch (IOException | IllegalStateException e) {
            return die();
        }
    }

    /** A reply larger than the buffer: a bigger one, keeping what was read. */
    private void grow(int needed) {
        ByteBuffer bigger = ByteBuffer.allocateDirect(Integer.highestOneBit(needed) << 1);
        in.flip();
        bigger.put(in);
        in = bigger;
    }

    private int die() {
        dead = true;
        close();
        return inFlight.getAndSet(0);
    }

    void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
