package org.fts.goa.giop;

import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * One connection's share of the {@link IntakeBudget}: the {@link GiopFrameGuard.Frames} of its input, and the
 * reply watch of its output.
 * <ul>
 *   <li>Every message takes its bytes (header included) when its header has been read, waiting for them if need
 *       be: the connection's reader is held back until they fit.</li>
 *   <li>A GIOP 1.2 Request that expects a reply keeps them, under its request id, until the connection writes a
 *       Reply or LocateReply with that id (a Fragment of it adds its bytes to it). Replies to a repeated id give
 *       back one request's bytes each, oldest first.</li>
 *   <li>Anything else gives them back once it has been read: oneways, GIOP 1.0/1.1 requests (their id follows a
 *       variable-length header), and every other message type. Those are bounded while they are read, not while
 *       JacORB queues them.</li>
 *   <li>The connection's close gives back everything it still holds.</li>
 * </ul>
 * Thread-safe: the reader, the writers and a closer may call it concurrently.
 */
final class IntakeAccount implements GiopFrameGuard.Frames {
    private final IntakeBudget budget;
    private final Runnable onHold;
    private final Map<Integer, ArrayDeque<Long>> held = new HashMap<>();
    /** Taken for the message being read, not yet kept under an id; given back at its end. */
    private long pending;
    private boolean fragment;
    private boolean closed;

    IntakeAccount(IntakeBudget budget, Runnable onHold) {
        this.budget = budget;
        this.onHold = onHold;
    }

    @Override
    public void header(int minor, int type, long size) {
        long n = GiopFrameGuard.HEADER + size;
        boolean taken;
        try {
            taken = budget.acquire(n, this::isClosed, onHold);
        } catch (InterruptedIOException e) {
            throw new UncheckedIOException(e);
        }
        synchronized (this) {
            fragment = type == GiopFrameGuard.FRAGMENT;
            if (taken && !closed) {
                pending += n;
                return;
            }
        }
        if (taken) {
            budget.release(n);   // closed meanwhile
        }
    }

    @Override
    public synchronized void requestId(int id, boolean expectsReply) {
        if (!expectsReply || pending == 0) {
            return;
        }
        ArrayDeque<Long> q = held.get(id);
        if (!fragment) {
            if (q == null) {
                q = new ArrayDeque<>(1);
                held.put(id, q);
            }
            q.addLast(pending);
        } else if (q != null) {
            q.addLast(q.removeLast() + pending);
        } else {
            return;   // a part of no request held here (JacORB drops it): given back at its end
        }
        pending = 0;
    }

    @Override
    public void end() {
        long n;
        synchronized (this) {
            n = pending;
            pending = 0;
        }
        budget.release(n);
    }

    /** The connection wrote a reply to {@code id}: the oldest request under that id gives its bytes back. */
    void replied(int id) {
        long n = 0;
        synchronized (this) {
            ArrayDeque<Long> q = held.get(id);
            if (q != null) {
                n = q.removeFirst();
                if (q.isEmpty()) {
                    held.remove(id);
                }
            }
        }
        budget.release(n);
    }

    /** The connection closed: everything it holds goes back, and a reader waiting for the budget gives up. */
    void close() {
        long n;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            n = pending;
            pending = 0;
            for (ArrayDeque<Long> q : held.values()) {
                for (long b : q) {
                    n += b;
                }
            }
            held.clear();
        }
        budget.release(n);
        budget.wake();
    }

    private synchronized boolean isClosed() {
        return closed;
    }
}
