package org.fts.goa.frontend;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.util.concurrent.ScheduledFuture;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.INTERNAL;
import org.omg.CORBA.SystemException;
import org.omg.IOP.ServiceContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection of the front end, on its event-loop thread: Requests go to the adaptor ({@link
 * GroupRequests}) with no hand-off, LocateRequests are answered from the object table, CancelRequest is ignored
 * (the request was ordered or will be), CloseConnection and MessageError close it, anything else is a MessageError.
 * Backpressure: a connection whose unsent replies pass the write high-water mark, or that finds the intake budget
 * spent, stops being read until they drain; no other connection waits for it.
 */
final class GiopConnection extends ChannelInboundHandlerAdapter implements ClientConnection {
    private static final Logger LOG = LoggerFactory.getLogger(GiopConnection.class);
    private static final long SWEEP_MILLIS = 100;
    private static final byte[] KEY_ADDR = {0, 0};   // NEEDS_ADDRESSING_MODE's body: KeyAddr

    private final FrontEnd front;
    private final GiopFrames frames;
    private Channel channel;
    private volatile ReplyWriter out;
    /** ISO 8859-1 and UTF-16 until the client's CodeSets context says otherwise (GIOP's defaults). */
    private volatile int[] codeSets = {0x00010001, 0x00010109};
    private boolean codeSetsSeen;
    /** Requests waiting for their answer with a deadline (event loop only). */
    private final ArrayDeque<Exchange> watched = new ArrayDeque<>();
    private ScheduledFuture<?> sweep;
    /** Whether this read's requests hold the batching doorway ({@link GroupRequests#burst}). */
    private boolean inBurst;
    /** Intake bytes this connection holds; guarded by this; negative once closed (nothing more is held). */
    private long held;
    private volatile boolean overBudget;
    /** Since when (nanoTime) the replies waiting on this connection are above the high-water mark; 0 when not. */
    private long unwritableSince;

    GiopConnection(FrontEnd front, GiopFrames frames) {
        this.front = front;
        this.frames = frames;
    }

    @Override
    public boolean isOpen() {
        Channel c = channel;
        return c != null && c.isActive();
    }

    GroupRequests requests() {
        return front.requests();
    }

    int[] codeSets() {
        return codeSets;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        out = new ReplyWriter(channel, ctx.pipeline().get("tls") != null);
        sweep = ctx.executor().scheduleAtFixedRate(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (sweep != null) {
            sweep.cancel(false);
        }
        long back;
        synchronized (this) {
            back = held;
            held = -1;
        }
        if (back > 0) {
            front.released(back);
        }
        watched.clear();
        if (inBurst) {
            inBurst = false;
            front.requests().burst(false);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        GiopFrames.Framed f = (GiopFrames.Framed) msg;
        byte[] m = f.message();
        if (m[7] == Giop.REQUEST) {
            request(m, f.taken());   // its bytes stay held until it is answered
            return;
        }
        release(f.taken());
        switch (m[7]) {
            case Giop.LOCATE_REQUEST -> locate(m);
            case Giop.CANCEL_REQUEST -> { }
            case Giop.CLOSE_CONNECTION, Giop.MESSAGE_ERROR -> ctx.close();
            default -> throw new GiopException("a message of type " + m[7] + " sent to a server");
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (inBurst) {
            inBurst = false;
            front.requests().burst(false);
        }
        ctx.fireChannelReadComplete();
    }

    private void request(byte[] m, int taken) {
        if (!inBurst) {
            inBurst = true;
            front.requests().burst(true);
        }
        GiopRequest r = Giop.request(m);
        if (!codeSetsSeen) {
            for (ServiceContext sc : r.contexts()) {
                if (sc.context_id == Giop.CODE_SETS) {
                    int[] cs = Giop.codeSets(sc.context_data);
                    if (cs != null) {
                        codeSets = cs;
                        codeSetsSeen = true;
                    }
                }
            }
        }
        Exchange ex = new Exchange(r, this, taken);
        if (r.objectKey() == null) {
            ex.reply(Giop.NEEDS_ADDRESSING_MODE, List.of(), KEY_ADDR);
            return;
        }
        try {
            front.requests().request(ex);
        } catch (SystemException e) {
            ex.fail(e);
        } catch (RuntimeException e) {
            LOG.warn("FTS front end: {} on {} failed: {}", r.operation(), channel.remoteAddress(), e.toString(), e);
            ex.fail(new INTERNAL("FTS: " + e, 0, CompletionStatus.COMPLETED_MAYBE));
        }
        if (!r.responseExpected()) {
            ex.done();
        }
    }

    private void locate(byte[] m) {
        Object[] idAndKey = Giop.locate(m);
        byte[] key = (byte[]) idAndKey[1];
        int status = key != null && front.requests().knows(key) ? Giop.OBJECT_HERE : Giop.UNKNOWN_OBJECT;
        out.send(Giop.locateReply(m[5], (Integer) idAndKey[0], status));
    }

    /** The reply of {@code ex}, from any thread: its intake bytes go back, and it is written without blocking. */
    void send(byte[] reply, Exchange ex) {
        release(ex);
        if (ex.request().responseExpected() && channel.isActive()) {
            out.send(reply);
        }
    }

    /** How this connection's messages were written (tests). */
    ReplyWriter writer() {
        return out;
    }

    void watch(Exchange ex) {
        watched.add(ex);
    }

    /**
     * A message's header declares {@code bytes} (header included): whether the budget took them. If not, this
     * connection stops being read until replies free some, and the message's header waits in the decoder.
     */
    boolean admit(int bytes) {
        if (!front.tryTake(bytes)) {
            if (!overBudget) {
                overBudget = true;
                autoRead();
            }
            front.waitForBudget(this);
            return false;
        }
        if (overBudget) {   // read again only once the waiting header got its bytes: no read piles up meanwhile
            overBudget = false;
            autoRead();
        }
        synchronized (this) {
            if (held >= 0) {
                held += bytes;
                return true;
            }
        }
        front.released(bytes);   // closed meanwhile
        return true;
    }

    /** Whether this connection is not read until the intake budget has room for its next message. */
    boolean waitingForBudget() {
        return overBudget;
    }

    void release(Exchange ex) {
        release(ex.bytes());
    }

    private void release(int bytes) {
        synchronized (this) {
            if (held < 0) {
                return;   // closed: its bytes went back then
            }
            held -= bytes;
        }
        front.released(bytes);
    }

    /** The budget has room again (any thread). */
    void budgetFreed() {
        channel.eventLoop().execute(() -> {
            if (!overBudget || !channel.isActive()) {
                return;
            }
            // the header that found the budget spent waits in the decoder: frame it again (admit decides); the
            // socket is read again only once it got its bytes
            channel.pipeline().fireChannelRead(Unpooled.EMPTY_BUFFER);
            channel.pipeline().fireChannelReadComplete();
        });
    }

    private void autoRead() {
        channel.config().setAutoRead(channel.isWritable() && !overBudget);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        unwritableSince = channel.isWritable() ? 0 : System.nanoTime();
        autoRead();
        ctx.fireChannelWritabilityChanged();
    }

    private void sweep() {
        long now = System.nanoTime();
        long part = frames.partSince();
        if (part != 0 && now - part > front.ioTimeoutNanos()) {
            front.timedOut(channel.remoteAddress(), "a message incomplete for longer than fts.giop.io_timeout");
            channel.close();
            return;
        }
        if (unwritableSince != 0 && now - unwritableSince > front.ioTimeoutNanos()) {
            front.timedOut(channel.remoteAddress(), "its replies unread for longer than fts.giop.io_timeout");
            channel.close();
            return;
        }
        for (Iterator<Exchange> it = watched.iterator(); it.hasNext(); ) {
            Exchange ex = it.next();
            if (ex.answered() || ex.expire(now)) {
                it.remove();
            }
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (c instanceof GiopFrames.TooLarge) {
            front.refused(ctx.channel().remoteAddress(), c.getMessage());
            ctx.close();
        } else if (c instanceof GiopException) {
            LOG.debug("FTS front end: {} from {}: MessageError", c.getMessage(), ctx.channel().remoteAddress());
            out.sendAndClose(Giop.bare(0, Giop.MESSAGE_ERROR));
        } else if (c instanceof IOException) {
            ctx.close();
        } else {
            LOG.warn("FTS front end: connection {} closed: {}", ctx.channel().remoteAddress(), c.toString(), c);
            ctx.close();
        }
    }
}
